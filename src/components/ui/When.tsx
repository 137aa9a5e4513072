import { formatDate, formatDateTime } from "@/shared/dates";

/**
 * A date or moment in the admin's one format (src/shared/dates.ts), in the business's time zone `tz`
 * (required, so no page forgets it), machine-readable in `dateTime`.
 */
export function When({
  at,
  tz,
  seconds = false,
  day = false,
}: {
  at: Date;
  tz: string;
  seconds?: boolean;
  day?: boolean;
}) {
  return (
    <time dateTime={at.toISOString()}>{day ? formatDate(at, tz) : formatDateTime(at, { seconds, tz })}</time>
  );
}
