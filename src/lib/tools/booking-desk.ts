import "server-only";
import type { Lang } from "@/shared/languages";

// The door through which the request_booking pack files a visitor's booking request with the business. Filing
// is a use case (src/lib/leads/booking.ts, above this layer: the Inbox, the mail, the booking.requested
// webhook) that whoever runs the pack hands it in its run context (ToolContext.bookings), as the knowledge
// searcher is handed to search_knowledge; the pack sees only this function type, so `npm run check:packs`
// can run it without a database.

export type BookingRequest = {
  name: string;
  /** An e-mail address or a phone number, as the visitor gave it. */
  contact: string;
  /** YYYY-MM-DD and HH:MM, in the business's time zone. */
  date: string;
  time: string;
  partySize?: number;
  service?: string;
  note?: string;
};

export type BookingFiled = {
  /** The Inbox entry's id: what the business and its webhook receiver refer to. */
  id: string;
};

export type BookingDesk = (
  tenantId: string,
  request: BookingRequest,
  meta: {
    conversationId?: string;
    /** The confirmed call's key: the same request filed twice is one request. */
    idempotencyKey: string;
    lang?: Lang;
    /** Where the business wants the request mailed, besides its owners. */
    notify?: string;
  },
) => Promise<BookingFiled>;
