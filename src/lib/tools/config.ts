import "server-only";
import { z } from "zod";
import { isTruthy } from "@/shared/parse";
import { checkUrlAtSave, type LookupFn } from "../security/url-policy";
import type { ConfigField, ConfigValue, ToolPack } from "./contract";
import { CONFIG_LIMITS } from "./form-data";

// From a pack's configFields the platform derives one zod schema. It validates what an admin submits and
// re-parses what is stored before every run, so a pack only ever sees values its fields allow. Unknown keys
// are dropped by z.object.

/** Suffix of the form field that clears a stored secret: `<key>__clear` = "1" (or true, "on"). */
export const CLEAR_SUFFIX = "__clear";

export const LIMITS = CONFIG_LIMITS;

const blankToUndefined = (v: unknown) =>
  v === null || (typeof v === "string" && v.trim() === "") ? undefined : v;

const required = (what: string) => ({
  error: (iss: { input: unknown }) => (iss.input === undefined ? "This field is required" : what),
});

const EMAIL = /^[^\s@<>(),;:"]+@[^\s@<>(),;:"]+\.[^\s@<>(),;:".]{2,}$/;

const tooLong = (max: number) => ({
  error: (iss: { input?: unknown }) =>
    typeof iss.input === "string"
      ? `This is ${iss.input.length} characters long; use at most ${max} (nothing was cut, nothing saved)`
      : `Use at most ${max} characters`,
});

/** "35,0116" → "35.0116": a decimal comma (as typed in much of Europe) is read as the decimal point. */
export function decimalPoint(v: string): string {
  return /^[-+]?\d+,\d+$/.test(v) ? v.replace(",", ".") : v;
}

const preview = (s: string) => (s.length > 24 ? `${s.slice(0, 24)}…` : s);

const PATH_CHARS = /^\/[A-Za-z0-9\-._~/!$&'()*+,;=:@]*$/;

/** Why a fixed path is unsafe to append to a base URL, or null when it is fine. */
export function pathProblem(p: string): string | null {
  if (!p.startsWith("/")) return "The path must start with /";
  if (p.startsWith("//")) return "The path must not start with //";
  if (/[?#]/.test(p)) return "The path cannot contain ? or #";
  // The allowlist below already refuses whitespace and control characters; these two get a clearer message.
  if (/[\\%]/.test(p)) return "The path cannot contain \\ or %";
  if (/^[a-z][a-z0-9+.-]*:/i.test(p.slice(1))) return "The path cannot contain a scheme";
  if (!PATH_CHARS.test(p)) return "The path contains characters that are not allowed";
  if (p.split("/").some((seg) => seg === ".." || seg === "."))
    return "The path cannot contain . or .. segments";
  return null;
}

function urlSyntax(v: string): boolean {
  try {
    return new URL(v).protocol === "https:" && /^https:\/\//i.test(v.trim());
  } catch {
    return false;
  }
}

function inner(f: ConfigField): z.ZodType<ConfigValue> {
  switch (f.type) {
    case "text":
    case "textarea": {
      const max = f.maxLength ?? LIMITS[f.type];
      const text = z.string(required("Enter text")).trim().max(max, tooLong(max));
      return f.format === "email"
        ? text.refine((v) => EMAIL.test(v), "Enter an e-mail address, like hello@example.com")
        : text;
    }
    case "secret": {
      const max = f.maxLength ?? LIMITS.secret;
      return z.string(required("Enter text")).max(max, tooLong(max));
    }
    case "url":
      return z
        .string(required("Enter an address"))
        .trim()
        .max(LIMITS.url, "This address is too long")
        .refine(urlSyntax, "URLs must start with https://");
    case "path":
      return z
        .string(required("Enter a path such as /api/menu.json"))
        .trim()
        .max(LIMITS.path, "This path is too long")
        .superRefine((v, ctx) => {
          const problem = pathProblem(v);
          if (problem) ctx.addIssue({ code: "custom", message: problem });
        });
    case "number": {
      let n = z.number(required("Enter a number")).finite("Enter a number");
      if (f.integer) n = n.int("Enter a whole number");
      if (f.min !== undefined) n = n.min(f.min, `Must be at least ${f.min}`);
      if (f.max !== undefined) n = n.max(f.max, `Must be at most ${f.max}`);
      return z.preprocess((v) => (typeof v === "string" ? Number(decimalPoint(v.trim())) : v), n);
    }
    case "boolean":
      return z.preprocess((v) => (typeof v === "string" ? isTruthy(v) : v), z.boolean("Choose yes or no"));
    case "select": {
      const values = f.options.map((o) => o.value);
      return z
        .string(required("Choose an option"))
        .refine((v) => values.includes(v), "Choose one of the options");
    }
    case "list": {
      const maxItems = f.maxItems ?? LIMITS.listItems;
      const itemMax = f.itemMaxLength ?? LIMITS.listItem;
      return z.preprocess(
        // The form may send one entry per line; stored configs hold an array.
        (v) => {
          const arr = typeof v === "string" ? v.split(/\r?\n/) : v;
          if (!Array.isArray(arr)) return v;
          return arr.map((s) => (typeof s === "string" ? s.trim() : s)).filter((s) => s !== "");
        },
        z
          .array(z.string("Each entry must be text"))
          .max(maxItems, `Use at most ${maxItems} entries`)
          // Checked on the whole list so the message can say which line (entries are one per line).
          .superRefine((items, ctx) => {
            items.forEach((s, i) => {
              const problem =
                s.length > itemMax
                  ? `is ${s.length} characters long; keep each entry under ${itemMax}`
                  : (f.itemProblem?.(s) ??
                    (f.itemPattern && !f.itemPattern.test(s)
                      ? (f.itemMessage ?? "this entry is not valid")
                      : null));
              if (problem)
                ctx.addIssue({
                  code: "custom",
                  path: [i],
                  message: `Line ${i + 1} ("${preview(s)}"): ${problem}`,
                });
            });
          }),
      );
    }
  }
}

function fieldSchema(f: ConfigField): z.ZodType<ConfigValue | undefined> {
  const base = inner(f);
  if (f.type === "boolean")
    return z.preprocess(blankToUndefined, base.optional().default(f.default ?? false));
  if (f.type === "list")
    return z.preprocess(blankToUndefined, base.optional().default([...(f.default ?? [])]));
  if ("default" in f && f.default !== undefined)
    return z.preprocess(blankToUndefined, base.optional().default(f.default as ConfigValue));
  return z.preprocess(blankToUndefined, f.required ? base : base.optional());
}

/** The zod schema for a pack's config. `secrets: false` leaves secret fields out (they are handled apart). */
export function configSchema(
  pack: Pick<ToolPack, "configFields">,
  opts: { secrets?: boolean } = {},
): z.ZodType<Record<string, ConfigValue>> {
  const shape: Record<string, z.ZodType<ConfigValue | undefined>> = {};
  for (const f of pack.configFields) {
    if (f.type === "secret" && opts.secrets === false) continue;
    shape[f.key] = fieldSchema(f);
  }
  return z.object(shape) as unknown as z.ZodType<Record<string, ConfigValue>>;
}

export type ValidateResult =
  | {
      ok: true;
      config: Record<string, ConfigValue>;
      secretsSet: Record<string, string>;
      secretsClear: string[];
    }
  | { ok: false; fieldErrors: Record<string, string> };

function firstErrors(error: z.ZodError): Record<string, string> {
  const out: Record<string, string> = {};
  for (const issue of error.issues) {
    const key = String(issue.path[0] ?? "_form");
    out[key] ??= issue.message;
  }
  return out;
}

/**
 * Validates what an admin submitted for one pack: field rules, then the url policy for every url field
 * (https, no port, public addresses, on the tenant's site domains). Secret inputs: empty or absent keeps the
 * stored value, `<key>__clear` clears it, and a required secret is satisfied by a stored value.
 */
export async function validatePackConfig(
  pack: Pick<ToolPack, "configFields">,
  input: Record<string, unknown>,
  opts: {
    siteDomains: readonly string[];
    /** The sealed secrets already stored, by key: only their presence matters here. */
    existingSecrets: Record<string, unknown>;
    tenantId: string;
    lookup?: LookupFn;
    allowHosts?: readonly string[];
  },
): Promise<ValidateResult> {
  const fieldErrors: Record<string, string> = {};
  const parsed = configSchema(pack, { secrets: false }).safeParse(input);
  if (!parsed.success) Object.assign(fieldErrors, firstErrors(parsed.error));

  const secretsSet: Record<string, string> = {};
  const secretsClear: string[] = [];
  for (const f of pack.configFields) {
    if (f.type !== "secret") continue;
    const raw = input[f.key];
    const clear = isTruthy(input[`${f.key}${CLEAR_SUFFIX}`]);
    if (typeof raw === "string" && raw !== "") {
      const max = f.maxLength ?? LIMITS.secret;
      if (raw.length > max) fieldErrors[f.key] = `Use at most ${max} characters`;
      else secretsSet[f.key] = raw;
    } else if (raw !== undefined && raw !== null && raw !== "") {
      fieldErrors[f.key] = "Enter text";
    } else if (clear) {
      if (f.required) fieldErrors[f.key] = "This field is required";
      else if (opts.existingSecrets[f.key]) secretsClear.push(f.key);
    } else if (f.required && !opts.existingSecrets[f.key]) {
      fieldErrors[f.key] = "This field is required";
    }
  }

  const config = parsed.success ? { ...parsed.data } : {};
  if (parsed.success) {
    for (const f of pack.configFields) {
      const value = config[f.key];
      if (f.type !== "url" || typeof value !== "string") continue;
      const checked = await checkUrlAtSave(value, {
        siteDomains: opts.siteDomains,
        allowHosts: opts.allowHosts,
        lookup: opts.lookup,
      });
      if (checked.ok) config[f.key] = checked.url;
      else fieldErrors[f.key] = checked.message;
    }
  }
  for (const k of Object.keys(config)) if (config[k] === undefined) delete config[k];

  if (Object.keys(fieldErrors).length > 0) return { ok: false, fieldErrors };
  return { ok: true, config, secretsSet, secretsClear };
}
