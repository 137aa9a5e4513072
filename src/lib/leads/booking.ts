import "server-only";
import { isMailAddress } from "@/lib/mail/send";
import type { DbHandle } from "../db";
import { insertBookingRequest, type LeadRow } from "../db/queries/leads";
import { getOwnTenant } from "../db/queries/tenants";
import { verifiedVisitorOf } from "../db/queries/visitor-identity";
import { env } from "../env";
import { log } from "../log";
import type { BookingDesk, BookingRequest } from "../tools/booking-desk";
import { visitorField } from "../webhooks/events";
import { publishEvent } from "../webhooks/publish";
import { leadMail, noticeRecipients } from "./notify";

// Filing a booking request the visitor confirmed (the request_booking pack, through ctx.bookings): one Inbox
// entry of kind "booking", the booking.requested webhook in the same transaction, then the mail to the owners
// (and the pack's extra address) after the commit, with the lead mail's retries. The confirmed call's
// idempotency key is unique per business, so a repeated run of one call files nothing twice. Nothing here
// says the booking is accepted: the business accepts or refuses it with the visitor.

/** The request in words for the Inbox and the mail (the admin's language is English). */
export function bookingText(r: BookingRequest): string {
  return [
    `Booking request for ${r.date} at ${r.time}`,
    r.partySize !== undefined ? `Party size: ${r.partySize}` : "",
    r.service ? `Service: ${r.service}` : "",
    r.note ? `Note: ${r.note}` : "",
    "Not confirmed yet: accept or refuse it with the visitor.",
  ]
    .filter(Boolean)
    .join("\n");
}

/** What booking.requested carries (docs/webhooks.md): the request, never a setting or a secret. */
function bookingPayload(row: LeadRow, r: BookingRequest, tenantSlug: string, idempotencyKey: string) {
  return {
    id: row.id,
    status: "requested",
    name: r.name,
    contact: r.contact,
    email: row.email,
    phone: row.phone,
    date: r.date,
    time: r.time,
    partySize: r.partySize ?? null,
    service: r.service ?? null,
    note: r.note ?? null,
    locale: row.locale,
    conversationId: row.conversationId,
    idempotencyKey,
    createdAt: row.createdAt.toISOString(),
    adminUrl: `${env().MICHI_PUBLIC_URL}/admin/${tenantSlug}/inbox?kind=booking`,
  };
}

export function bookingDeskFor(db: DbHandle): BookingDesk {
  return async (tenantId, request, meta) => {
    const contact = request.contact.trim();
    const email = isMailAddress(contact) ? contact : "";
    const filed = await db.forTenant(tenantId, async (tx) => {
      const tenant = await getOwnTenant(tx, tenantId);
      if (!tenant) throw new Error("the business is gone");
      const { row, created } = await insertBookingRequest(tx, {
        tenantId,
        conversationId: meta.conversationId ?? null,
        requestKey: meta.idempotencyKey,
        name: request.name.trim(),
        email,
        phone: email ? "" : contact,
        message: bookingText(request),
        consentText: "",
        locale: meta.lang ?? "",
      });
      if (!created) return { row, tenant, recipients: null };
      await publishEvent(tx, {
        tenantId,
        type: "booking.requested",
        data: {
          booking: bookingPayload(row, request, tenant.slug, meta.idempotencyKey),
          ...visitorField(row.conversationId ? await verifiedVisitorOf(tx, row.conversationId) : null),
        },
        dedupeKey: `booking:${row.id}`,
      });
      return { row, tenant, recipients: await noticeRecipients(tx, tenantId, meta.notify) };
    });
    if (filed.recipients) {
      const t = { id: tenantId, name: filed.tenant.name, slug: filed.tenant.slug };
      await leadMail(db, t, filed.row, { recipients: filed.recipients }, log());
    }
    return { id: filed.row.id };
  };
}

/** The same over the database the process has open when a request is filed (the widget's late wiring). */
export function processBookingDesk(db: () => Promise<DbHandle>): BookingDesk {
  return async (tenantId, request, meta) => bookingDeskFor(await db())(tenantId, request, meta);
}
