import { formatDate, formatDateTime } from "@/shared/dates";

/** A date or moment in the admin's one format (src/shared/dates.ts), machine-readable in `dateTime`. */
export function When({ at, seconds = false, day = false }: { at: Date; seconds?: boolean; day?: boolean }) {
  return <time dateTime={at.toISOString()}>{day ? formatDate(at) : formatDateTime(at, { seconds })}</time>;
}
