import type { ConfigField } from "@/lib/tools/contract";
import { formatDate } from "@/shared/dates";

// The pure half of the config form: how a pack's fields are named in the HTML form, how a submitted FormData
// becomes the input the pack validator expects, and how a stored config becomes the strings the inputs show.
// Kept free of React so it is shared by the server action, the page and the client renderer.

/** Default limits of the field types (a field's own maxLength etc. wins); the validator and the counters use them. */
export const CONFIG_LIMITS = {
  text: 200,
  textarea: 4000,
  secret: 1000,
  url: 2000,
  path: 300,
  listItems: 50,
  listItem: 200,
} as const;

/** Field inputs carry a prefix so a pack key can never collide with the form's own names (packId, enabled). */
export const FIELD_PREFIX = "cfg.";

export function fieldName(key: string): string {
  return `${FIELD_PREFIX}${key}`;
}

/** A hidden input set to "1" when the admin asked to clear a stored secret. */
export function secretClearName(key: string): string {
  return `${FIELD_PREFIX}${key}.clear`;
}

/** What the inputs show: one string per field key (lists one item per line, booleans "true" / "false"). */
export type FieldValues = Record<string, string>;

/** What the page may tell the browser about a secret: whether it is set and since when, never the value. */
export type SecretState = { set: boolean; setAt: string | null };

/** What the admin asked for each secret field in this submission. */
export type SecretIntent = { kind: "keep" } | { kind: "replace"; value: string } | { kind: "clear" };

export type Submission = {
  /** Non-secret values as typed, safe to send back to the browser after a failed save. */
  values: FieldValues;
  secrets: Record<string, SecretIntent>;
};

function text(fd: FormData, name: string): string {
  const v = fd.get(name);
  return typeof v === "string" ? v : "";
}

/** Checkbox semantics: present and not "false"/"0" means on. */
function checked(fd: FormData, name: string): boolean {
  const v = fd.get(name);
  return typeof v === "string" && v !== "" && v !== "false" && v !== "0";
}

/** Reads one pack's fields from a submitted form. Unknown names in the form are ignored. */
export function readSubmission(fields: readonly ConfigField[], fd: FormData): Submission {
  const values: FieldValues = {};
  const secrets: Record<string, SecretIntent> = {};
  for (const f of fields) {
    const name = fieldName(f.key);
    if (f.type === "secret") {
      const typed = text(fd, name);
      if (checked(fd, secretClearName(f.key)) && typed === "") secrets[f.key] = { kind: "clear" };
      else if (typed !== "") secrets[f.key] = { kind: "replace", value: typed };
      else secrets[f.key] = { kind: "keep" };
    } else if (f.type === "boolean") {
      values[f.key] = checked(fd, name) ? "true" : "false";
    } else {
      values[f.key] = text(fd, name);
    }
  }
  return { values, secrets };
}

/** One list item per line; blank lines dropped, items trimmed. */
export function splitList(raw: string): string[] {
  return raw
    .split(/\r?\n/)
    .map((s) => s.trim())
    .filter(Boolean);
}

/**
 * The typed values as the validator's input: numbers as numbers when they parse (otherwise the raw text, so the
 * validator can say what is wrong), lists as arrays, blank optional values left out.
 */
export function toValidatorInput(fields: readonly ConfigField[], s: Submission): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of fields) {
    if (f.type === "secret") continue;
    const raw = s.values[f.key] ?? "";
    switch (f.type) {
      case "boolean":
        out[f.key] = raw === "true";
        break;
      case "list":
        out[f.key] = splitList(raw);
        break;
      case "number": {
        const t = raw.trim();
        if (t === "") break;
        const n = Number(t);
        out[f.key] = Number.isFinite(n) ? n : t;
        break;
      }
      case "textarea":
        if (raw.trim() !== "") out[f.key] = raw;
        break;
      default: {
        const t = raw.trim();
        if (t !== "") out[f.key] = t;
      }
    }
  }
  return out;
}

/**
 * The validator's input for secret fields: a replacement under the field key, a clear request under
 * `<key><clearSuffix>`, nothing for "keep". The suffix comes from the validator (src/lib/tools/config.ts).
 */
export function secretInput(
  secrets: Record<string, SecretIntent>,
  clearSuffix: string,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, intent] of Object.entries(secrets)) {
    if (intent.kind === "replace") out[key] = intent.value;
    else if (intent.kind === "clear") out[`${key}${clearSuffix}`] = true;
  }
  return out;
}

/**
 * A copy of the fields with only plain, display-relevant properties: safe to hand to a client component
 * (patterns and anything a pack author adds later stay on the server).
 */
export function clientFields(fields: readonly ConfigField[]): ConfigField[] {
  return fields.map((f): ConfigField => {
    const base = {
      key: f.key,
      label: f.label,
      required: f.required === true,
      ...(f.help ? { help: f.help } : {}),
      ...(f.placeholder ? { placeholder: f.placeholder } : {}),
    };
    switch (f.type) {
      case "text":
      case "textarea":
        return { ...base, type: f.type, default: f.default, maxLength: f.maxLength ?? CONFIG_LIMITS[f.type] };
      case "secret":
        return { ...base, type: f.type, maxLength: f.maxLength };
      case "number":
        return { ...base, type: f.type, default: f.default, min: f.min, max: f.max, integer: f.integer };
      case "boolean":
        return { ...base, type: f.type, default: f.default };
      case "select":
        return {
          ...base,
          type: f.type,
          default: f.default,
          options: f.options.map((o) => ({ value: o.value, label: o.label })),
        };
      case "list":
        return {
          ...base,
          type: f.type,
          default: f.default ? [...f.default] : undefined,
          maxItems: f.maxItems,
          itemMaxLength: f.itemMaxLength,
        };
      default:
        return { ...base, type: f.type, default: f.default };
    }
  });
}

function display(f: ConfigField, v: unknown): string {
  if (f.type === "boolean") return v === true ? "true" : "false";
  if (f.type === "list") return Array.isArray(v) ? v.filter((x) => typeof x === "string").join("\n") : "";
  if (typeof v === "string") return v;
  if (typeof v === "number" && Number.isFinite(v)) return String(v);
  return "";
}

/** The strings the inputs start with: the stored value, else the field's default, else empty. Secrets never. */
export function configToValues(
  fields: readonly ConfigField[],
  config: Record<string, unknown> | null | undefined,
): FieldValues {
  const out: FieldValues = {};
  for (const f of fields) {
    if (f.type === "secret") continue;
    const stored = config?.[f.key];
    out[f.key] = display(f, stored !== undefined ? stored : "default" in f ? f.default : undefined);
  }
  return out;
}

/** Reduces stored sealed secrets to what a page may show: set or not, and when. */
export function secretStates(
  fields: readonly ConfigField[],
  sealed: Record<string, { setAt?: string | null } | undefined> | null | undefined,
): Record<string, SecretState> {
  const out: Record<string, SecretState> = {};
  for (const f of fields) {
    if (f.type !== "secret") continue;
    const s = sealed?.[f.key];
    out[f.key] = s
      ? { set: true, setAt: typeof s.setAt === "string" ? s.setAt : null }
      : { set: false, setAt: null };
  }
  return out;
}

/**
 * Validator errors keyed by field key (possibly with a sub-path such as "items.2") folded onto the field key,
 * first message wins, so every message lands next to an input the admin can see.
 */
export function errorsByField(
  fields: readonly ConfigField[],
  fieldErrors: Record<string, string>,
): { byField: Record<string, string>; other: string[] } {
  const keys = new Set(fields.map((f) => f.key));
  const byField: Record<string, string> = {};
  const other: string[] = [];
  for (const [path, message] of Object.entries(fieldErrors)) {
    const bare = path.startsWith(FIELD_PREFIX) ? path.slice(FIELD_PREFIX.length) : path;
    const key = bare.split(/[.[]/)[0] ?? bare;
    if (keys.has(key)) byField[key] ??= message;
    else other.push(message);
  }
  return { byField, other };
}

/**
 * "Set on 3 May 2025": the day in the business's time zone (UTC when the caller has none), the same text on
 * the server and in the browser.
 */
export function formatSetOn(setAt: string | null, timeZone = "UTC"): string {
  if (!setAt) return "Set";
  const d = new Date(setAt);
  if (Number.isNaN(d.getTime())) return "Set";
  return `Set on ${formatDate(d, timeZone)}`;
}
