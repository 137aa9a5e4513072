// Small parsers every layer needs, declared once. No server imports: the widget bundle may use them too.

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** True for a textual uuid; ids from URLs and cookies are checked before they reach a query. */
export function isUuid(value: unknown): value is string {
  return typeof value === "string" && UUID.test(value);
}

const TRUTHY = new Set(["true", "1", "on", "yes"]);

/** A checkbox, form field or environment flag read as yes/no: true, "true", "1", "on" and "yes" are yes. */
export function isTruthy(value: unknown): boolean {
  return value === true || (typeof value === "string" && TRUTHY.has(value.trim().toLowerCase()));
}

/** A comma-separated setting ("a, b,,c") as its trimmed, non-empty entries. */
export function commaList(value: string | undefined): string[] {
  return (value ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
}
