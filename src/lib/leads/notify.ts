import "server-only";
import type { DbHandle, TenantTx } from "../db/client";
import { getLead, type LeadRow, setLeadMail } from "../db/queries/leads";
import { listMembers } from "../db/queries/members";
import { getPackConfig } from "../db/queries/packs";
import { verifiedVisitorOf } from "../db/queries/visitor-identity";
import { env } from "../env";
import { log as appLog, type Logger } from "../log";
import { isMailAddress, sendMail } from "../mail/send";
import { processQueue, type QueuePolicy, type QueueWorker } from "../queue";
import { visitorField } from "../webhooks/events";
import { publishEvent } from "../webhooks/publish";

// Telling the business. Kept in this one file so the mail and webhook wiring is a single place to read.
//
// - The webhook events are published INSIDE the transaction that stores the lead or the rating, so they are
//   queued exactly when the row exists (a rolled-back lead sends nothing) and survive a restart.
// - The mail goes after the commit (sendMail writes its Outbox record through its own connection): a mail
//   server that is down must not lose the visitor's request. Its recipients are read in the transaction.
//   Whether it went out is stored on the lead for the Inbox; what failed is retried by the durable queue.

/** What lead.created carries (docs/webhooks.md): the request itself, never a setting or a secret. */
function leadPayload(lead: LeadRow, tenantSlug: string) {
  return {
    id: lead.id,
    kind: lead.kind,
    source: lead.source,
    name: lead.name,
    email: lead.email,
    phone: lead.phone,
    message: lead.message,
    locale: lead.locale,
    conversationId: lead.conversationId,
    createdAt: lead.createdAt.toISOString(),
    adminUrl: `${env().MICHI_PUBLIC_URL}/admin/${tenantSlug}/inbox`,
  };
}

export type LeadNotice = { recipients: string[] };

/**
 * In the lead's transaction: publishes lead.created and reads who is told by mail: the business's own
 * contact address (the e-mail typed into the "Looking up our details" pack) and every owner.
 */
export async function leadEvents(
  tx: TenantTx,
  tenant: { id: string; slug: string },
  lead: LeadRow,
): Promise<LeadNotice> {
  const tenantId = tenant.id;
  await publishEvent(tx, {
    tenantId,
    type: "lead.created",
    // Wrapped in the event's noun, like conversation.finished, so receivers can add fields side by side.
    data: {
      lead: leadPayload(lead, tenant.slug),
      ...visitorField(lead.conversationId ? await verifiedVisitorOf(tx, lead.conversationId) : null),
    },
    dedupeKey: `lead:${lead.id}`,
  });
  return { recipients: await noticeRecipients(tx, tenantId) };
}

/**
 * Who is told by mail about a visitor's request: the business's own contact address (the e-mail typed into
 * the "Looking up our details" pack), every owner, and `extra` (a pack's own address) when it is one.
 */
export async function noticeRecipients(tx: TenantTx, tenantId: string, extra?: string): Promise<string[]> {
  const info = await getPackConfig(tx, "get_business_info");
  const contact = typeof info?.config?.email === "string" ? info.config.email.trim() : "";
  const owners = (await listMembers(tx, tenantId)).filter((m) => m.role === "owner").map((m) => m.email);
  return [...new Set([contact, ...owners, extra?.trim() ?? ""].filter(isMailAddress))];
}

/** Retry n of a failed lead mail waits about 60 s·2^n: six retries span an hour of mail server trouble. */
const LEAD_MAIL_POLICY: QueuePolicy = { retryLimit: 6, retryDelaySeconds: 60, expireInSeconds: 120 };

export const LEAD_MAIL_QUEUE = "lead-mail";

/** The business's name and address as they were when the lead came in; the job is about that moment. */
type LeadMailJob = {
  tenant: { id: string; name: string; slug: string };
  leadId: string;
  recipients: string[];
};

function leadMailText(tenant: { name: string; slug: string }, lead: LeadRow) {
  const who = lead.name || lead.email || lead.phone;
  const booking = lead.kind === "booking";
  // A booking is a request, not a booking: the mail says the business still has to accept or refuse it.
  const [noun, opening, inbox] = booking
    ? [
        "booking request",
        `A visitor of ${tenant.name} sent a booking request and confirmed it. It is not booked yet: reply to them to accept or refuse it.`,
        "inbox?kind=booking",
      ]
    : ["contact request", `A visitor of ${tenant.name} asked to be contacted by a person.`, "inbox"];
  return {
    subject: `New ${noun} from ${who}`.replace(/[\r\n]+/g, " ").slice(0, 200),
    text: [
      opening,
      "",
      `Name:    ${lead.name || "(not given)"}`,
      `E-mail:  ${lead.email || "(not given)"}`,
      `Phone:   ${lead.phone || "(not given)"}`,
      "",
      lead.message,
      "",
      `Inbox: ${env().MICHI_PUBLIC_URL}/admin/${tenant.slug}/${inbox}`,
    ].join("\n"),
  };
}

/** Sends the lead's mail to each recipient; returns those it could not be handed over to, with the reason. */
async function sendLeadMails(
  tenant: { id: string; name: string; slug: string },
  lead: LeadRow,
  recipients: string[],
  log: Logger,
): Promise<{ failed: string[]; error: string }> {
  const { subject, text } = leadMailText(tenant, lead);
  // The visitor's address becomes the Reply-To only when it passes the mail check; an address stored before
  // that check (or one it refuses) stays in the text, and the notice still goes out.
  const replyTo = lead.email && isMailAddress(lead.email) ? lead.email : undefined;
  const failed: string[] = [];
  let error = "";
  for (const to of recipients) {
    try {
      const r = await sendMail({ to, subject, text, kind: "lead", tenantId: tenant.id, replyTo });
      if (r.status === "failed") {
        failed.push(to);
        error = r.error ?? "the mail server refused the mail";
      }
    } catch (err) {
      failed.push(to);
      error = err instanceof Error ? err.message : String(err);
      log.warn({ err, leadId: lead.id }, "could not send the lead mail");
    }
  }
  return { failed, error };
}

/**
 * After the commit: one mail per recipient, with the request and a link to the Inbox. Never throws. The
 * outcome is stored on the lead (the Inbox shows a failure); mails that failed go to the durable queue,
 * which tries them again with backoff.
 */
export async function leadMail(
  db: DbHandle,
  tenant: { id: string; name: string; slug: string },
  lead: LeadRow,
  notice: LeadNotice,
  log: Logger,
): Promise<void> {
  if (notice.recipients.length === 0) return;
  try {
    const { failed, error } = await sendLeadMails(tenant, lead, notice.recipients, log);
    await db.forTenant(tenant.id, (tx) =>
      setLeadMail(
        tx,
        tenant.id,
        lead.id,
        failed.length ? { status: "failed", error } : { status: "sent", error: "" },
      ),
    );
    if (failed.length === 0) return;
    const queue = processQueue();
    if (!queue) throw new Error("the job queue is not running");
    const job: LeadMailJob = {
      tenant: { id: tenant.id, name: tenant.name, slug: tenant.slug },
      leadId: lead.id,
      recipients: failed,
    };
    await (await queue).send(LEAD_MAIL_QUEUE, job);
  } catch (err) {
    // The visitor's request is stored whatever happens here; the Inbox shows it.
    log.error({ err, leadId: lead.id }, "could not record or queue the lead mail");
  }
}

/** One retry of the mails that failed; throwing sends the job back for the next one. */
export async function retryLeadMail(db: DbHandle, job: LeadMailJob, log: Logger): Promise<void> {
  const tenantId = job.tenant.id;
  const lead = await db.forTenant(tenantId, (tx) => getLead(tx, tenantId, job.leadId));
  if (!lead) return; // the lead or the business was deleted meanwhile
  const { failed, error } = await sendLeadMails(job.tenant, lead, job.recipients, log);
  await db.forTenant(tenantId, (tx) =>
    setLeadMail(
      tx,
      tenantId,
      lead.id,
      failed.length ? { status: "failed", error } : { status: "sent", error: "" },
    ),
  );
  if (failed.length) throw new Error(`the lead mail could not be sent: ${error}`);
}

/** The queue's worker for lead mails that failed at first (boot registers it with the others). */
export function leadMailWorkers(db: DbHandle): QueueWorker[] {
  const worker: QueueWorker<LeadMailJob> = {
    name: LEAD_MAIL_QUEUE,
    policy: LEAD_MAIL_POLICY,
    batchSize: 5,
    handler: (job) => retryLeadMail(db, job.data, appLog()),
  };
  return [worker as QueueWorker];
}

export async function feedbackEvents(
  tx: TenantTx,
  tenantId: string,
  feedback: { messageId: string; conversationId: string; rating: "up" | "down"; comment: string },
): Promise<void> {
  await publishEvent(tx, {
    tenantId,
    type: "feedback.created",
    // A thumbs-down is usually followed by its comment: held briefly, the two are one event.
    dedupeKey: `feedback:${feedback.messageId}`,
    settleSeconds: env().MICHI_WEBHOOK_FEEDBACK_SETTLE_SECONDS,
    data: {
      feedback: {
        messageId: feedback.messageId,
        conversationId: feedback.conversationId,
        rating: feedback.rating,
        comment: feedback.comment,
        createdAt: new Date().toISOString(),
      },
    },
  });
}
