import "server-only";
import type { TenantTx } from "../db/client";
import type { LeadRow } from "../db/queries/leads";
import type { Logger } from "../log";

// Telling the business. Kept in this one file so the mail and webhook wiring is a single place to read.
//
// - `leadEvents` runs INSIDE the transaction that stores the lead, so the webhook event is queued exactly when
//   the lead exists (a rolled-back lead sends nothing).
// - `leadMail` runs after the commit: a mail server that is down must not lose the visitor's request.

export async function leadEvents(_tx: TenantTx, _tenantId: string, _lead: LeadRow): Promise<void> {
  // Wired to the webhook queue's publishEvent when it is merged (issue 16 item 5).
}

export async function leadMail(
  _tenant: { id: string; name: string; slug: string },
  _lead: LeadRow,
  _log: Logger,
) {
  // Wired to sendMail when the mail module is merged.
}

export async function feedbackEvents(
  _tx: TenantTx,
  _tenantId: string,
  _feedback: { messageId: string; conversationId: string; rating: "up" | "down"; comment: string },
): Promise<void> {
  // Wired to the webhook queue's publishEvent when it is merged (issue 16 item 5).
}
