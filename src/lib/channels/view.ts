import "server-only";
import { CHANNEL_WORDS } from "@/shared/channels";
import { assertRole, auditedTx, type TenantContext } from "../auth/access";
import { type ConnectionRow, channelsSwitchedOn, listConnections } from "../db/queries/channels";
import { recentOutbound } from "../db/queries/channels-messages";
import { CHANNELS, type Channel, type OutboundStatus } from "../db/schema";
import { adapterFor } from "./adapter";
import { refusalWords } from "./refusals";
import { webhookUrl } from "./webhook-url";

// What the Channels page shows: per channel, whether it is connected, the webhook URL to paste at Meta or
// Telegram, which secrets are set (never their values), the last inbound and outbound, and the latest
// problems. Every member may look.

export type ChannelView = {
  channel: Channel;
  /** The channel's name (src/shared/channels.ts). */
  title: string;
  connected: boolean;
  /** "Not connected.", or the adapter's words for the connection ("Connected as @bot."). */
  status: string;
  webhookUrl: string | null;
  /** What to do with the webhook URL, in the adapter's words. */
  webhookLabel: string | null;
  /** How customers confirm actions there, in the adapter's words (null: not connected). */
  actions: string | null;
  phoneNumberId: string | null;
  /** The secret fields that hold a value; the values never leave the server. */
  secretsSet: string[];
  lastInboundAt: Date | null;
  lastOutboundAt: Date | null;
  lastError: string | null;
  lastErrorAt: Date | null;
  /** Deliveries refused since the last good one, in words (no secret, nothing of the refused request). */
  refused: { at: Date; count: number; words: string } | null;
  recent: { at: Date; status: OutboundStatus; errorCode: string | null; errorTitle: string | null }[];
};

export async function listChannels(
  ctx: TenantContext,
): Promise<{ platformOn: boolean; channels: ChannelView[] }> {
  assertRole(ctx, "viewer");
  const platformOn = await channelsSwitchedOn(ctx.db.platform);
  const channels = await auditedTx(ctx, async (tx) => {
    const rows = await listConnections(tx);
    return Promise.all(
      CHANNELS.map(async (channel): Promise<ChannelView> => {
        const c = rows.find((r) => r.channel === channel);
        const recent = c ? await recentOutbound(tx, c.id, 10) : [];
        const described = c ? adapterFor(channel).describe(c) : null;
        return {
          channel,
          title: CHANNEL_WORDS[channel].label,
          connected: !!c,
          status: described?.status ?? "Not connected.",
          webhookUrl: c ? webhookUrl(c) : null,
          webhookLabel: described?.webhookLabel ?? null,
          actions: described?.actions ?? null,
          phoneNumberId: c?.settings.phoneNumberId ?? null,
          secretsSet: c ? Object.keys(c.secrets).sort() : [],
          lastInboundAt: c?.lastInboundAt ?? null,
          lastOutboundAt: c?.lastOutboundAt ?? null,
          lastError: c?.lastError ?? null,
          lastErrorAt: c?.lastErrorAt ?? null,
          refused: refusedOf(c),
          recent: recent.map((o) => ({
            at: o.updatedAt,
            status: o.status,
            errorCode: o.errorCode,
            errorTitle: o.errorTitle,
          })),
        };
      }),
    );
  });
  return { platformOn, channels };
}

function refusedOf(c: ConnectionRow | undefined): ChannelView["refused"] {
  const words = c ? refusalWords(c) : null;
  return c?.lastRefusedAt && words ? { at: c.lastRefusedAt, count: c.refusedCount, words } : null;
}
