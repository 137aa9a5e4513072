import { platformPacks } from "@/lib/chat/packs";
import type { ToolPack } from "@/lib/tools/contract";
import type { EnabledPack } from "@/lib/tools/runtime";
import { type ChannelWorld, startChannelWorld } from "./channel-world";

// The WhatsApp tests' shared world: a business with starters and one tool pack, the fake model's answers, a
// fresh customer per test, and what the fake Graph API was sent to whom.

const info: ToolPack = {
  id: "get_business_info",
  label: "Checking our details",
  definition: {
    type: "function",
    function: {
      name: "get_business_info",
      description: "Opening hours (test)",
      parameters: { type: "object", properties: { topic: { type: "string" } }, required: ["topic"] },
    },
  },
  configFields: [],
  run: async () => ({ answer: "9 to 5" }),
};
const enabled: EnabledPack[] = [{ pack: info, config: {}, definition: info.definition }];

export type WhatsAppWorld = ChannelWorld & {
  /** A fresh wamid and a fresh customer, so tests never see each other's messages. */
  fresh(): { id: string; from: string; timestamp: number };
  /** The messages the fake Graph API accepted for a person. */
  sentTo(to: string): ChannelWorld["graph"]["sent"];
  /** While on, every turn fails to start with a plain error (not a refusal), as a broken dependency would. */
  breakTurns(on: boolean): void;
  /** The messages stored as sent (or not) to a person. */
  outboundOf(from: string): Promise<Awaited<ReturnType<ChannelWorld["rows"]>>["outbound"]>;
};

export const textOf = (s: { body: Record<string, unknown> }) =>
  (s.body.text as { body?: string } | undefined)?.body ??
  (s.body.interactive as { body?: { text?: string } } | undefined)?.body?.text;

export async function startWhatsAppWorld(prefix: string): Promise<WhatsAppWorld> {
  let broken = false;
  const c = await startChannelWorld({
    packs: {
      ...platformPacks,
      loadEnabled: async () => {
        if (broken) throw new Error("the pack settings could not be read");
        return enabled;
      },
    },
    bot: { language: "en", starters: ["What are your opening hours?", "Where are you?"] },
  });
  c.w.fake.setRules([
    { match: "opening", steps: [{ type: "text", text: "We open at **nine**." }] },
    { match: "first", steps: [{ type: "text", text: "Answer one." }] },
    { match: "second", steps: [{ type: "text", text: "Answer two." }] },
    {
      match: "long",
      steps: [{ type: "text", text: `${"A sentence of the long answer. ".repeat(200)}The end.` }],
    },
    {
      match: "hours",
      steps: [
        {
          type: "tool_calls",
          calls: [{ id: "c1", name: "get_business_info", arguments: '{"topic":"hours"}' }],
        },
        { type: "text", text: "From {{tool.answer}}." },
      ],
    },
    { match: "", steps: [{ type: "text", text: "Hello." }] },
  ]);
  let seq = 0;
  return Object.assign(c, {
    fresh() {
      seq++;
      return {
        id: `wamid.TEST${prefix}${seq}${Math.random().toString(36).slice(2, 8)}`,
        from: `1555${prefix}${String(seq).padStart(4, "0")}`,
        // Meta stamps the time the person sent it: now, so WhatsApp's 24-hour window is open.
        timestamp: Math.floor(Date.now() / 1000),
      };
    },
    sentTo: (to: string) => c.graph.sent.filter((s) => s.to === to),
    breakTurns(on: boolean) {
      broken = on;
    },
    async outboundOf(from: string) {
      const r = await c.rows();
      const conv = r.contacts.find((k) => k.address === from)?.conversationId;
      return r.outbound.filter((o) => o.conversationId === conv);
    },
  });
}
