import { type ListFilters, listFiltersSchema } from "@/lib/db/queries/insights-list";

// The Conversations list's address: which filters its query string holds, and the links that keep them.

export const FILTER_KEYS = ["from", "to", "pack", "outcome", "channel", "rating", "scope", "q"] as const;

export type SearchParams = Record<string, string | string[] | undefined>;

/** Each filter is read on its own, so one bad value drops that filter and says so instead of failing the page. */
export function readFilters(sp: SearchParams): { filters: ListFilters; ignored: string[] } {
  const filters: ListFilters = {};
  const ignored: string[] = [];
  for (const key of FILTER_KEYS) {
    const raw = sp[key];
    if (typeof raw !== "string" || raw === "") continue;
    const parsed = listFiltersSchema.shape[key].safeParse(raw);
    if (parsed.success) Object.assign(filters, { [key]: parsed.data });
    else ignored.push(key);
  }
  return { filters, ignored };
}

export function isFiltered(filters: ListFilters): boolean {
  return FILTER_KEYS.some((k) => filters[k]);
}

/** The query string of the list with these filters (and a cursor, for the next page). */
export function listQuery(filters: ListFilters, extra: Record<string, string> = {}): string {
  const p = new URLSearchParams();
  for (const key of FILTER_KEYS) {
    const v = filters[key];
    if (v) p.set(key, v);
  }
  for (const [k, v] of Object.entries(extra)) p.set(k, v);
  const s = p.toString();
  return s ? `?${s}` : "";
}

/** The export takes the chosen days only: the other filters narrow the list, not the export. */
export function exportHref(tenantSlug: string, filters: ListFilters, format: string): string {
  const p = new URLSearchParams({ format });
  if (filters.from) p.set("from", filters.from);
  if (filters.to) p.set("to", filters.to);
  return `/api/admin/${tenantSlug}/export?${p}`;
}
