import "server-only";
import { formatDateTime } from "@/shared/dates";
import type { DbHandle, TenantTx } from "../db/client";
import { lockLiveConversation } from "../db/queries/live-conversations";
import { listMembers } from "../db/queries/members";
import { getOwnTenant } from "../db/queries/tenants";
import { env } from "../env";
import { log as appLog } from "../log";
import { isMailAddress, sendMail } from "../mail/send";
import { processQueue, type QueuePolicy, type QueueWorker } from "../queue";
import { visitorField } from "../webhooks/events";
import { publishEvent } from "../webhooks/publish";

// A visitor nobody claims (issue #28): when they asked for a person, a job is queued in the same transaction
// to run after the business's N minutes (live settings). If by then the conversation still waits, from that
// same request, the owners and admins get a mail and a signed `handoff.waiting` webhook goes out. A durable
// pg-boss job, so a restart in between loses nothing and several instances send it once.

export const LIVE_ESCALATION_QUEUE = "live-escalation";

const POLICY: QueuePolicy = { retryLimit: 5, retryDelaySeconds: 30, expireInSeconds: 120 };

type EscalationJob = { tenantId: string; conversationId: string; requestedAt: string };

/** In the request's transaction: the job that checks on the visitor after `afterMin` minutes. */
export async function scheduleEscalation(
  tx: TenantTx,
  job: EscalationJob & { afterMin: number },
): Promise<void> {
  const pending = processQueue();
  if (!pending) throw new Error("the job queue is not running (boot starts it)");
  const { afterMin, ...data } = job;
  await (await pending).sendIn(tx, LIVE_ESCALATION_QUEUE, data, {
    startAfterSeconds: Math.max(1, afterMin * 60),
  });
}

/** The job: nothing when the visitor was claimed, handed back or asked again since; else mail and webhook. */
export async function escalateWaiting(db: DbHandle, job: EscalationJob): Promise<void> {
  const found = await db.forTenant(job.tenantId, async (tx) => {
    const tenant = await getOwnTenant(tx, job.tenantId);
    const c = await lockLiveConversation(tx, job.conversationId);
    const still =
      c?.liveState === "waiting" &&
      c.liveRequestedAt?.toISOString() === new Date(job.requestedAt).toISOString();
    if (!tenant || !c || !still) return null;
    const waitedMin = Math.round((Date.now() - new Date(job.requestedAt).getTime()) / 60_000);
    await publishEvent(tx, {
      tenantId: job.tenantId,
      type: "handoff.waiting",
      data: {
        conversation: {
          id: c.id,
          locale: c.locale,
          requestedAt: job.requestedAt,
          waitedMinutes: waitedMin,
          adminUrl: `${env().MICHI_PUBLIC_URL}/admin/${tenant.slug}/inbox/live?c=${c.id}`,
        },
        ...visitorField(c.verifiedVisitor),
      },
      dedupeKey: `handoff-waiting:${c.id}:${job.requestedAt}`,
    });
    const recipients = (await listMembers(tx, job.tenantId))
      .filter((m) => m.role !== "viewer")
      .map((m) => m.email)
      .filter(isMailAddress);
    return { tenant, recipients };
  });
  if (!found) return;
  const { tenant, recipients } = found;
  const url = `${env().MICHI_PUBLIC_URL}/admin/${tenant.slug}/inbox/live?c=${job.conversationId}`;
  for (const to of recipients) {
    const r = await sendMail({
      to,
      subject: `A visitor of ${tenant.name} is waiting for a person`.replace(/[\r\n]+/g, " ").slice(0, 200),
      text: [
        `A visitor asked to talk with a person at ${formatDateTime(job.requestedAt, { tz: tenant.timeZone })} and nobody has claimed the conversation yet.`,
        "",
        `Open the live chat: ${url}`,
      ].join("\n"),
      kind: "live_waiting",
      tenantId: tenant.id,
    });
    if (r.status === "failed")
      appLog().warn({ to, error: r.error }, "could not send the waiting-visitor mail");
  }
}

/** The queue's worker (boot registers it with the others). */
export function liveEscalationWorkers(db: DbHandle): QueueWorker[] {
  const worker: QueueWorker<EscalationJob> = {
    name: LIVE_ESCALATION_QUEUE,
    policy: POLICY,
    handler: (job) => escalateWaiting(db, job.data),
  };
  return [worker as QueueWorker];
}
