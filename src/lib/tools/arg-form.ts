import type { ToolDefinition } from "@/lib/tools/contract";

// The Test panel's argument form, generated from the pack's `definition.function.parameters` the way the
// config form is generated from `configFields`: one input per property, typed, with its description as help
// and plain-language errors. Pure (no React, no server code) so the page, the action and the browser share it.

export type ArgField = {
  key: string;
  /** The property name made readable: "dietary" → "Dietary", "max_items" → "Max items". */
  label: string;
  kind: "text" | "number" | "integer" | "boolean" | "choice";
  required: boolean;
  description: string | null;
  options: string[];
};

/** Arg inputs carry a prefix so a property can never collide with the form's own names (packId). */
export const ARG_PREFIX = "arg.";

export const argName = (key: string) => `${ARG_PREFIX}${key}`;

function readable(key: string): string {
  const words = key
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/[_-]+/g, " ")
    .trim()
    .toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

type JsonSchemaish = { type?: unknown; enum?: unknown; description?: unknown };

/** The form's fields, in the order the pack declares its properties. */
export function argFields(parameters: ToolDefinition["function"]["parameters"]): ArgField[] {
  const required = new Set(parameters.required ?? []);
  return Object.entries(parameters.properties).map(([key, raw]) => {
    const p = (raw ?? {}) as JsonSchemaish;
    const options = Array.isArray(p.enum) ? p.enum.map(String) : [];
    const type = Array.isArray(p.type) ? p.type.find((t) => t !== "null") : p.type;
    const kind: ArgField["kind"] =
      options.length > 0
        ? "choice"
        : type === "number"
          ? "number"
          : type === "integer"
            ? "integer"
            : type === "boolean"
              ? "boolean"
              : "text";
    return {
      key,
      label: readable(key),
      kind,
      required: required.has(key),
      description: typeof p.description === "string" ? p.description : null,
      options,
    };
  });
}

/** What the inputs show before anything is typed: the pack's example arguments, as strings. */
export function argValues(fields: readonly ArgField[], example: Record<string, unknown> | undefined) {
  const out: Record<string, string> = {};
  for (const f of fields) {
    const v = example?.[f.key];
    out[f.key] = v === undefined || v === null ? "" : typeof v === "object" ? JSON.stringify(v) : String(v);
  }
  return out;
}

export type ArgResult =
  | { ok: true; args: Record<string, unknown> }
  | { ok: false; fieldErrors: Record<string, string> };

/**
 * Reads the submitted form into the arguments the model would send. Blank optional inputs are left out;
 * every problem is said in words an admin understands, keyed by the input's name.
 */
export function readArgs(fields: readonly ArgField[], fd: FormData): ArgResult {
  const args: Record<string, unknown> = {};
  const fieldErrors: Record<string, string> = {};
  for (const f of fields) {
    const name = argName(f.key);
    const rawValue = fd.get(name);
    const raw = typeof rawValue === "string" ? rawValue.trim() : "";
    if (f.kind === "boolean") {
      if (raw === "true" || raw === "false") args[f.key] = raw === "true";
      else if (f.required) fieldErrors[name] = `Choose yes or no for "${f.label}".`;
      continue;
    }
    if (raw === "") {
      if (f.required) fieldErrors[name] = `Fill in "${f.label}": the tool needs it.`;
      continue;
    }
    if (raw.length > 500) {
      fieldErrors[name] = `"${f.label}" is ${raw.length} characters long; keep it under 500.`;
      continue;
    }
    if (f.kind === "choice") {
      if (f.options.includes(raw)) args[f.key] = raw;
      else fieldErrors[name] = `Pick one of the listed values for "${f.label}".`;
    } else if (f.kind === "number" || f.kind === "integer") {
      const n = Number(raw.replace(",", "."));
      if (!Number.isFinite(n)) fieldErrors[name] = `"${f.label}" must be a number, like 3 or 2.5.`;
      else if (f.kind === "integer" && !Number.isInteger(n))
        fieldErrors[name] = `"${f.label}" must be a whole number, like 3.`;
      else args[f.key] = n;
    } else {
      args[f.key] = raw;
    }
  }
  return Object.keys(fieldErrors).length > 0 ? { ok: false, fieldErrors } : { ok: true, args };
}
