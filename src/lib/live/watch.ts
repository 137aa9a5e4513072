import "server-only";
import { assertRole, type TenantContext } from "../auth/access";
import { liveTail } from "../db/queries/live-events";
import { liveEventStream } from "./stream";

// The console's stream ends after this long and EventSource reconnects through the guard: a member removed,
// or signed out everywhere, stops receiving within it.
const MAX_STREAM_MS = 15 * 60_000;

/**
 * The business's live stream for the console: every live event of the tenant (notes and assignments too)
 * after `after`; with no cursor it starts at the newest event, since the page already shows the state up to
 * now. Viewers may watch. The stream ends when `signal` aborts.
 */
export async function watchLiveEvents(
  ctx: Pick<TenantContext, "db" | "tenant" | "role">,
  input: { after: number | null; signal?: AbortSignal },
): Promise<ReadableStream<Uint8Array>> {
  assertRole(ctx, "viewer");
  const after = input.after ?? (await ctx.db.forTenant(ctx.tenant.id, (tx) => liveTail(tx)));
  return liveEventStream({
    db: ctx.db,
    tenantId: ctx.tenant.id,
    after,
    signal: input.signal,
    maxMs: MAX_STREAM_MS,
  });
}
