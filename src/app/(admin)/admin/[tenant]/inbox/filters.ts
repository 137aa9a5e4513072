import type { InboxFilters } from "@/lib/db/queries/leads";

// The Inbox's address: the filters and page its query string holds, and the links that keep them.

export type SearchParams = Record<string, string | string[] | undefined>;

const one = (v: string | string[] | undefined) => (typeof v === "string" ? v : "");

/** An unknown status or kind leaves that filter out; the search is cut to the form's own limit. */
export function readFilters(sp: SearchParams): InboxFilters {
  const status = one(sp.status);
  const kind = one(sp.kind);
  return {
    status: status === "new" || status === "handled" ? status : "",
    kind: kind === "lead" || kind === "handoff" || kind === "booking" ? kind : "",
    q: one(sp.q).slice(0, 200),
  };
}

/** The page number, from 0, within the range the list can be paged to. */
export function readPage(sp: SearchParams): number {
  return Math.max(0, Math.min(1000, Number.parseInt(one(sp.page), 10) || 0));
}

export function isFiltered(filters: InboxFilters): boolean {
  return Boolean(filters.status || filters.kind || filters.q);
}

/** The query string of the Inbox with these filters on this page. */
export function inboxQuery(filters: InboxFilters, page: number): string {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries({ ...filters, page: String(page) })) if (v) p.set(k, String(v));
  const s = p.toString();
  return s ? `?${s}` : "";
}

export const KIND_LABEL = {
  lead: "Contact request",
  handoff: "Hand-off offered, no details left",
  booking: "Booking request (not confirmed yet)",
} as const;
