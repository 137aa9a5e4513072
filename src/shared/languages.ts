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

/** The supported language of a tag such as "es-MX" or "ja_JP" (its primary subtag), else English. */
export function langOrEnglish(tag: string | null | undefined): Lang {
  const base = tag?.toLowerCase().split(/[-_]/)[0];
  return isLang(base) ? base : "en";
}
