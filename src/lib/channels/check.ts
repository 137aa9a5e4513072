import "server-only";
import { assertRole, auditedTx, type TenantContext } from "../auth/access";
import { getConnectionByChannel } from "../db/queries/channels";
import type { Channel } from "../db/schema";
import { AppError } from "../errors";
import { webhookUrl } from "./connect";
import { type ChannelDeps, telegramClientFor, whatsappClientFor } from "./deps";
import { refusalWords } from "./refusals";

// "Check connection" on the Channels page, like "Check model": asks the provider with the stored token and
// says in words what is wrong. Reads only; nothing secret is in the answer.

export type ChannelCheck = { ok: boolean; lines: string[] };

export async function checkChannelConnection(
  ctx: TenantContext,
  channel: Channel,
  opts: Pick<ChannelDeps, "graphBaseUrl" | "telegramBaseUrl"> = {},
): Promise<ChannelCheck> {
  assertRole(ctx, "admin");
  const conn = await auditedTx(ctx, (tx) => getConnectionByChannel(tx, channel));
  if (!conn) throw new AppError("not_found", "This channel is not connected.");
  const lines: string[] = [];
  let ok = true;
  // Deliveries that reached us but failed their check: every one is a message nobody answers.
  const words = refusalWords(conn);
  const refused =
    words && conn.lastRefusedAt ? `${words} Last refused at ${conn.lastRefusedAt.toISOString()}.` : null;
  if (conn.channel === "whatsapp") {
    const r = await whatsappClientFor(opts, conn).checkConnection();
    if (r.ok) {
      lines.push(
        `The access token works for ${r.displayPhoneNumber ?? "this number"}${r.verifiedName ? ` (${r.verifiedName})` : ""}.`,
      );
    } else {
      ok = false;
      lines.push(r.message);
    }
    if (refused) {
      ok = false;
      lines.push(refused);
    }
    lines.push(
      conn.lastInboundAt
        ? refused
          ? `The last message from Meta that passed the check arrived at ${conn.lastInboundAt.toISOString()}.`
          : `Meta last delivered a message at ${conn.lastInboundAt.toISOString()}.`
        : "No message from Meta has arrived yet. At Meta, check the callback URL and verify token, that the messages field is subscribed, and that the app secret here is the app's (a wrong one makes every delivery fail its signature).",
    );
  } else {
    const client = telegramClientFor(opts, conn);
    const me = await client.getMe();
    if (!me.ok) {
      ok = false;
      lines.push(me.message);
    } else {
      lines.push(`The bot token works for @${me.username ?? "your bot"}.`);
      const info = await client.getWebhookInfo();
      if (!info.ok) {
        ok = false;
        lines.push(info.message);
      } else if (info.url !== webhookUrl(conn)) {
        ok = false;
        lines.push(
          "Telegram is not sending this bot's messages here (its webhook points elsewhere). Connect again to fix it.",
        );
      } else if (info.lastErrorMessage) {
        ok = false;
        lines.push(`Telegram could not reach the webhook: ${info.lastErrorMessage}`);
      } else {
        lines.push("Telegram delivers this bot's messages here.");
      }
    }
  }
  if (conn.channel === "telegram") {
    // Telegram's own last error is about reaching us; a refusal is about what reached us.
    if (refused) {
      ok = false;
      lines.push(refused);
    }
  }
  if (conn.lastError) lines.push(`Last problem: ${conn.lastError}`);
  return { ok, lines };
}
