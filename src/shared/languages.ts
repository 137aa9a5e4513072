// The languages a bot can speak and the widget can show, declared once for the server and the widget bundle.

export type Lang = "en" | "es" | "fr" | "de" | "ja";

/** Each language by its own name, as a shop owner picks it on the Bot page. */
export const LANGUAGE_LABELS: Record<Lang, string> = {
  en: "English",
  es: "Español",
  fr: "Français",
  de: "Deutsch",
  ja: "日本語",
};

export const LANGS = Object.keys(LANGUAGE_LABELS) as [Lang, ...Lang[]];

export function isLang(value: unknown): value is Lang {
  return typeof value === "string" && Object.hasOwn(LANGUAGE_LABELS, value);
}

/** The primary subtag of a language tag, lower case: "es" for "es-MX", "ja" for "ja_JP", "" for none. */
export function primarySubtag(tag: unknown): string {
  return typeof tag === "string" ? (tag.trim().toLowerCase().split(/[-_]/)[0] ?? "") : "";
}

/** The supported language of a tag (its primary subtag), or undefined when it names none of them. */
export function langOf(tag: unknown): Lang | undefined {
  const base = primarySubtag(tag);
  return isLang(base) ? base : undefined;
}

/** The supported language of a tag such as "es-MX" or "ja_JP", else English. */
export function langOrEnglish(tag: string | null | undefined): Lang {
  return langOf(tag) ?? "en";
}

/** The longest locale tag kept with a conversation (BCP 47 allows 35 characters for the usual forms). */
export const LOCALE_MAX = 35;
