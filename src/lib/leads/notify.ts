import "server-only";
import type { TenantTx } from "../db/client";
import type { LeadRow } from "../db/queries/leads";
import { listMembers } from "../db/queries/members";
import { getPackConfig } from "../db/queries/packs";
import { env } from "../env";
import type { Logger } from "../log";
import { sendMail } from "../mail/send";
import { publishEvent } from "../webhooks/publish";

// Telling the business. Kept in this one file so the mail and webhook wiring is a single place to read.
//
// - The webhook events are published INSIDE the transaction that stores the lead or the rating, so they are
//   queued exactly when the row exists (a rolled-back lead sends nothing) and survive a restart.
// - The mail goes after the commit (sendMail writes its Outbox record through its own connection): a mail
//   server that is down must not lose the visitor's request. Its recipients are read in the transaction.

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
    data: { lead: leadPayload(lead, tenant.slug) },
    dedupeKey: `lead:${lead.id}`,
  });
  const info = await getPackConfig(tx, "get_business_info");
  const contact = typeof info?.config?.email === "string" ? info.config.email.trim() : "";
  const owners = (await listMembers(tx, tenantId)).filter((m) => m.role === "owner").map((m) => m.email);
  const recipients = [...new Set([contact, ...owners].filter((a) => /^[^\s@]+@[^\s@]+$/.test(a)))];
  return { recipients };
}

/** After the commit: one mail per recipient, with the request and a link to the Inbox. Never throws. */
export async function leadMail(
  tenant: { id: string; name: string; slug: string },
  lead: LeadRow,
  notice: LeadNotice,
  log: Logger,
): Promise<void> {
  const who = lead.name || lead.email || lead.phone;
  const text = [
    `A visitor of ${tenant.name} asked to be contacted by a person.`,
    "",
    `Name:    ${lead.name || "(not given)"}`,
    `E-mail:  ${lead.email || "(not given)"}`,
    `Phone:   ${lead.phone || "(not given)"}`,
    "",
    lead.message,
    "",
    `Inbox: ${env().MICHI_PUBLIC_URL}/admin/${tenant.slug}/inbox`,
  ].join("\n");
  for (const to of notice.recipients) {
    try {
      await sendMail({
        to,
        subject: `New contact request from ${who}`.replace(/[\r\n]+/g, " ").slice(0, 200),
        text,
        kind: "lead",
        tenantId: tenant.id,
        replyTo: lead.email || undefined,
      });
    } catch (err) {
      // A malformed mail (say, an odd reply-to) must not turn the visitor's stored request into an error.
      log.warn({ err, leadId: lead.id }, "could not send the lead mail");
    }
  }
}

export async function feedbackEvents(
  tx: TenantTx,
  tenantId: string,
  feedback: { messageId: string; conversationId: string; rating: "up" | "down"; comment: string },
): Promise<void> {
  await publishEvent(tx, {
    tenantId,
    type: "feedback.created",
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
