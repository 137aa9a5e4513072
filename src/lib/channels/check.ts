import "server-only";
import { formatDateTime } from "../../shared/dates";
import { assertRole, auditedTx, type TenantContext } from "../auth/access";
import { getConnectionByChannel } from "../db/queries/channels";
import type { Channel } from "../db/schema";
import { AppError } from "../errors";
import { adapterFor } from "./adapter";
import type { ApiBases, ChannelCheck } from "./adapter-types";
import { refusalWords } from "./refusals";

// "Check connection" on the Channels page, like "Check model": asks the provider with the stored token and
// says in words what is wrong. Reads only; nothing secret is in the answer.

export async function checkChannelConnection(
  ctx: TenantContext,
  channel: Channel,
  opts: ApiBases = {},
): Promise<ChannelCheck> {
  assertRole(ctx, "admin");
  const conn = await auditedTx(ctx, (tx) => getConnectionByChannel(tx, channel));
  if (!conn) throw new AppError("not_found", "This channel is not connected.");
  // Deliveries that reached us but failed their check: every one is a message nobody answers.
  const words = refusalWords(conn);
  // Times read in the business's own zone, as everywhere else on its pages.
  const tz = ctx.tenant.timeZone;
  const refused =
    words && conn.lastRefusedAt
      ? `${words} Last refused at ${formatDateTime(conn.lastRefusedAt, { tz })}.`
      : null;
  const { ok, lines } = await adapterFor(conn.channel).check(opts, conn, refused, tz);
  if (conn.lastError) lines.push(`Last problem: ${conn.lastError}`);
  return { ok, lines };
}
