import type { ConfigField } from "@/lib/tools/contract";
import { CONFIG_LIMITS, type FieldValues, fieldName, type SecretState } from "@/lib/tools/form-data";
import { CharCounter } from "../ui/CharCounter";
import { SecretControl } from "./SecretControl";

// One renderer for every pack: it knows field types, never pack ids. A pack an operator adds gets its form
// from its configFields alone.

export type ConfigFieldsProps = {
  /** Unique per form on the page; input ids derive from it. */
  idPrefix: string;
  fields: readonly ConfigField[];
  values: FieldValues;
  secrets: Record<string, SecretState>;
  errors?: Record<string, string>;
  readOnly?: boolean;
  /** The business's time zone, for dates shown in the form. */
  timeZone?: string;
};

export function fieldIds(idPrefix: string, key: string) {
  const id = `${idPrefix}-${key}`;
  return { id, label: `${id}-label`, help: `${id}-help`, error: `${id}-error` };
}

function describedBy(ids: ReturnType<typeof fieldIds>, hasHelp: boolean, hasError: boolean) {
  const list = [hasHelp ? ids.help : null, hasError ? ids.error : null].filter(Boolean);
  return list.length > 0 ? list.join(" ") : undefined;
}

function helpText(f: ConfigField): string | undefined {
  const extra: string[] = [];
  if (f.type === "list") {
    if (!/per line/i.test(f.help ?? "")) extra.push("One per line.");
    if (f.maxItems) extra.push(`Up to ${f.maxItems}.`);
  }
  if (f.type === "number") {
    if (f.min !== undefined && f.max !== undefined) extra.push(`From ${f.min} to ${f.max}.`);
    else if (f.min !== undefined) extra.push(`At least ${f.min}.`);
    else if (f.max !== undefined) extra.push(`At most ${f.max}.`);
    if (!f.integer) extra.push("A decimal point or comma both work.");
  }
  // The platform's own promise about secrets, unless the pack's help already says it in its words.
  if (f.type === "secret" && !/encrypt|never shown/i.test(f.help ?? ""))
    extra.push("Stored encrypted and never shown again.");
  const all = [f.help, ...extra].filter(Boolean).join(" ");
  return all || undefined;
}

function Control({
  f,
  ids,
  value,
  secret,
  invalid,
  readOnly,
  described,
  timeZone,
}: {
  f: ConfigField;
  ids: ReturnType<typeof fieldIds>;
  value: string;
  secret?: SecretState;
  invalid: boolean;
  readOnly: boolean;
  described?: string;
  timeZone?: string;
}) {
  const common = {
    id: ids.id,
    name: fieldName(f.key),
    "aria-invalid": invalid || undefined,
    "aria-describedby": described,
    "aria-required": f.required || undefined,
  };
  switch (f.type) {
    case "secret":
      return (
        <SecretControl
          id={ids.id}
          labelId={ids.label}
          name={fieldName(f.key)}
          fieldKey={f.key}
          state={secret ?? { set: false, setAt: null }}
          placeholder={f.placeholder}
          required={f.required}
          readOnly={readOnly}
          describedBy={described}
          invalid={invalid}
          timeZone={timeZone}
        />
      );
    case "textarea":
      return (
        <textarea {...common} className="input" rows={4} defaultValue={value} placeholder={f.placeholder} />
      );
    case "list":
      return (
        <textarea
          {...common}
          className="input font-mono"
          rows={Math.min(8, Math.max(3, (f.maxItems ?? 4) + 1))}
          defaultValue={value}
          placeholder={f.placeholder}
          spellCheck={false}
        />
      );
    case "boolean":
      return (
        <input
          {...common}
          type="checkbox"
          className="h-4 w-4"
          value="true"
          defaultChecked={value === "true"}
        />
      );
    case "select":
      return (
        <select {...common} className="input" defaultValue={value}>
          {/* An empty choice only where empty is a real state: nothing chosen yet, or optional with no default. */}
          {value === "" || (!f.required && f.default === undefined) ? (
            <option value="">Choose…</option>
          ) : null}
          {f.options.map((o) => (
            <option key={o.value} value={o.value}>
              {o.label}
            </option>
          ))}
        </select>
      );
    case "number":
      return (
        <input
          {...common}
          type="text"
          inputMode={f.integer ? "numeric" : "decimal"}
          className="input"
          defaultValue={value}
          placeholder={f.placeholder}
        />
      );
    case "url":
    case "path":
      return (
        <input
          {...common}
          type="text"
          inputMode="url"
          className="input font-mono"
          autoComplete="off"
          spellCheck={false}
          defaultValue={value}
          placeholder={f.placeholder ?? (f.type === "path" ? "/api/…" : "https://")}
        />
      );
    default:
      return (
        <input {...common} type="text" className="input" defaultValue={value} placeholder={f.placeholder} />
      );
  }
}

/**
 * The inputs for one pack's configFields, with labels, help and per-field errors wired for assistive technology.
 * Read-only rendering disables every input (the surrounding form also leaves out its save button).
 */
export function ConfigFields({
  idPrefix,
  fields,
  values,
  secrets,
  errors,
  readOnly = false,
  timeZone,
}: ConfigFieldsProps) {
  return (
    <fieldset disabled={readOnly} className="space-y-4">
      {fields.map((f) => {
        const ids = fieldIds(idPrefix, f.key);
        const help = helpText(f);
        const error = errors?.[f.key];
        const described = describedBy(ids, !!help, !!error);
        const control = (
          <Control
            f={f}
            ids={ids}
            value={values[f.key] ?? ""}
            secret={secrets[f.key]}
            invalid={!!error}
            readOnly={readOnly}
            described={described}
            timeZone={timeZone}
          />
        );
        const isBool = f.type === "boolean";
        return (
          <div key={f.key} data-field={f.key}>
            {isBool ? (
              <div className="flex items-center gap-2">
                {control}
                <label id={ids.label} htmlFor={ids.id} className="label mb-0">
                  {f.label}
                </label>
              </div>
            ) : (
              <>
                <label id={ids.label} htmlFor={ids.id} className="label">
                  {f.label}
                  {f.required ? (
                    <span className="muted font-normal"> (required)</span>
                  ) : (
                    <span className="muted font-normal"> (optional)</span>
                  )}
                </label>
                {control}
              </>
            )}
            {(f.type === "text" || f.type === "textarea") && !readOnly ? (
              <CharCounter forId={ids.id} max={f.maxLength ?? CONFIG_LIMITS[f.type]} />
            ) : null}
            {help ? (
              <p id={ids.help} className="help">
                {help}
              </p>
            ) : null}
            {error ? (
              <p id={ids.error} className="field-error">
                {error}
              </p>
            ) : null}
          </div>
        );
      })}
    </fieldset>
  );
}
