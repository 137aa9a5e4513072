import "server-only";
import type { ConfirmCard } from "@/shared/chat-events";
import type { AnyConfig, ConfirmField, Lang, ToolPack } from "./contract";
import { clipText, isRecord } from "./project";

// What the visitor reads on a confirmation card: the pack's title and each declared argument under its
// label, in the conversation's language. The values are worded here, never shown as raw JSON: a visitor
// must be able to check "2 people, 19:30, Ana" at a glance before anything is sent.

const YES_NO: Record<Lang, [string, string]> = {
  en: ["Yes", "No"],
  es: ["Sí", "No"],
  fr: ["Oui", "Non"],
  de: ["Ja", "Nein"],
  ja: ["はい", "いいえ"],
};

const MAX_VALUE_CHARS = 300;

/** The fields a configured pack shows on its card (fixed, or from the tenant's config). */
export function confirmFields(pack: ToolPack, config: AnyConfig): readonly ConfirmField[] {
  const spec = pack.confirm;
  if (!spec) return [];
  return typeof spec.fields === "function" ? spec.fields(config) : spec.fields;
}

/** The card's heading in `lang`, English words when the pack has none in that language. */
export function confirmTitle(pack: ToolPack, config: AnyConfig, lang: Lang = "en"): string {
  const t = pack.confirm?.title;
  if (t === undefined) return pack.label;
  if (typeof t === "string") return t;
  if (typeof t === "function") return t(config);
  return t[lang] ?? t.en;
}

/** One argument's value in words: numbers in the language's format, yes/no translated, lists joined. */
export function wordValue(value: unknown, lang: Lang = "en"): string | undefined {
  if (value === undefined || value === null || value === "") return undefined;
  if (typeof value === "boolean") return YES_NO[lang][value ? 0 : 1];
  if (typeof value === "number") {
    return Number.isFinite(value) ? new Intl.NumberFormat(lang).format(value) : undefined;
  }
  if (typeof value === "string") return clipText(value, MAX_VALUE_CHARS);
  if (Array.isArray(value)) {
    const parts = value.map((v) => wordValue(v, lang)).filter((v): v is string => v !== undefined);
    return parts.length ? clipText(parts.join(", "), MAX_VALUE_CHARS) : undefined;
  }
  if (isRecord(value)) {
    // A nested object reads as "key: value" pairs, still never as JSON punctuation.
    const parts = Object.entries(value).flatMap(([k, v]) => {
      const w = wordValue(v, lang);
      return w === undefined ? [] : [`${k}: ${w}`];
    });
    return parts.length ? clipText(parts.join("; "), MAX_VALUE_CHARS) : undefined;
  }
  return undefined;
}

/** The card for one validated call: title and labelled values (absent optional arguments are left out). */
export function confirmCard(
  entry: { pack: ToolPack; config: AnyConfig },
  args: Record<string, unknown>,
  lang: Lang = "en",
): Omit<ConfirmCard, "callId" | "expiresAt"> {
  const fields = confirmFields(entry.pack, entry.config).flatMap((f) => {
    const value = wordValue(args[f.key], lang);
    return value === undefined ? [] : [{ label: f.labels?.[lang] ?? f.label, value }];
  });
  return { title: confirmTitle(entry.pack, entry.config, lang), fields };
}

/** Faults of a pack's `confirm` against a parameters schema, for check.ts (npm run check:packs). */
export function confirmFaults(
  pack: ToolPack,
  config: AnyConfig | undefined,
  parameters: { properties?: Record<string, unknown> },
): string[] {
  const spec = pack.confirm;
  if (!spec) return [];
  const faults: string[] = [];
  const title = spec.title;
  if (typeof title === "string" ? !title.trim() : typeof title === "object" && !title.en?.trim())
    faults.push("confirm.title is empty");
  if (typeof title === "function" && config !== undefined && !title(config)?.trim())
    faults.push("confirm.title gives no words for the example config");
  if (typeof spec.fields === "function" && config === undefined) return faults;
  const fields = typeof spec.fields === "function" ? spec.fields(config as AnyConfig) : spec.fields;
  if (!Array.isArray(fields) || fields.length === 0) faults.push("confirm.fields lists no argument");
  const props = parameters.properties ?? {};
  for (const f of fields ?? []) {
    if (!Object.hasOwn(props, f.key))
      faults.push(`confirm field "${f.key}" is not an argument of the parameters schema`);
    if (!f.label?.trim()) faults.push(`confirm field "${f.key}" has no label`);
    for (const [lang, label] of Object.entries(f.labels ?? {}) as [string, string | undefined][])
      if (!label?.trim()) faults.push(`confirm field "${f.key}" has an empty ${lang} label`);
  }
  return faults;
}
