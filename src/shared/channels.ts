// The channels a conversation comes in by, as the admin names them: one row per channel, so a page asks this
// table what to say instead of asking which channel it is (scripts/channel-branch-check.mjs refuses a
// `channel === "…"` outside the adapters' folders). What a channel does (verify, parse, format, send, check)
// is its server adapter's, in src/lib/channels/adapter.ts; this file is words only, so browser components
// may read it too.

export type ChannelWords = {
  /** Its name in lists, filters and the live console's queue. */
  label: string;
  /** The live console: where the person is and where a reply goes. */
  whereReplies: string;
  /** A limit on delivering replies the person answering should know (WhatsApp's 24 hours), or "". */
  replyWindow: string;
};

const messaging = (label: string, replyWindow = ""): ChannelWords => ({
  label,
  whereReplies: `On ${label}: your replies are sent there, the visitor's messages arrive here.`,
  replyWindow,
});

/** Every conversation channel: the widget ("web") and each messaging channel with an adapter. */
export const CHANNEL_WORDS = {
  web: { label: "Website chat", whereReplies: "On the website chat.", replyWindow: "" },
  whatsapp: messaging(
    "WhatsApp",
    "WhatsApp delivers replies only within 24 hours of the person's last message.",
  ),
  telegram: messaging("Telegram"),
} as const satisfies Record<string, ChannelWords>;

/** The channels as a filter's options, in the table's order. */
export const CHANNEL_OPTIONS = Object.entries(CHANNEL_WORDS).map(([value, w]) => ({ value, label: w.label }));
