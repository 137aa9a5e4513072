import "server-only";
import type { TenantContext } from "../auth/access";
import { getTranscript, timeline } from "../db/queries/insights-transcript";
import { listLiveQueue, listNotes } from "../db/queries/live-conversations";
import { liveTail } from "../db/queries/live-events";
import { isAway, readLiveSettings } from "../db/queries/live-presence";
import { listMembers } from "../db/queries/members";

// What the live console shows, read in one tenant transaction so the queue, the open conversation and the
// log position the page's stream resumes from are of one moment: the queue oldest first, the conversation
// asked for (else the first in the queue) with its internal notes, the caller's away flag, the settings and
// the teammates who can answer. Every member may read it; viewers only watch.

export async function loadLiveConsole(ctx: TenantContext, selectedId: string | null = null) {
  return ctx.db.forTenant(ctx.tenant.id, async (tx) => {
    const queue = await listLiveQueue(tx, ctx.tenant.id);
    const open = selectedId ?? queue[0]?.id ?? null;
    const transcript = open ? await getTranscript(tx, ctx.tenant.id, open) : null;
    return {
      tail: await liveTail(tx),
      queue,
      away: await isAway(tx, ctx.tenant.id, ctx.user.id),
      settings: await readLiveSettings(tx, ctx.tenant.id),
      team: (await listMembers(tx, ctx.tenant.id)).filter((m) => m.role !== "viewer"),
      transcript,
      /** The open conversation's entry in the queue (who has it), when it is in the queue. */
      item: transcript ? queue.find((q) => q.id === transcript.conversation.id) : undefined,
      /** The open conversation's messages and tool runs in the order they happened. */
      entries: transcript ? timeline(transcript) : [],
      notes: open ? await listNotes(tx, open) : [],
    };
  });
}

export type LiveConsole = Awaited<ReturnType<typeof loadLiveConsole>>;
