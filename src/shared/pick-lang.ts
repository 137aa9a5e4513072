// Which of the widget's languages a conversation is in: the embed's choice, the business's, the browser's.

import { type Lang, langOf } from "@/shared/languages";

/** "ja-JP", "JA", "ja_jp" → "ja"; anything we do not speak → null. */
export function normalizeLang(tag: string | null | undefined): Lang | null {
  return langOf(tag) ?? null;
}

/** The languages of an Accept-Language header, best first (q=0 entries dropped). */
export function parseAcceptLanguage(header: string | null | undefined): string[] {
  if (!header) return [];
  return header
    .split(",")
    .slice(0, 20)
    .map((part, i) => {
      const [tag = "", ...params] = part.trim().split(";");
      const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
      const weight = q ? Number(q.slice(2)) : 1;
      return { tag: tag.trim(), weight: Number.isFinite(weight) ? weight : 0, i };
    })
    .filter((x) => x.tag && x.tag !== "*" && x.weight > 0)
    .sort((a, b) => b.weight - a.weight || a.i - b.i)
    .map((x) => x.tag);
}

/**
 * The widget's language: the embed's data-michi-lang, else the tenant's bot language, else the first browser
 * language we speak, else English. An unsupported value at one level falls through to the next.
 */
export function pickLang(
  requested: string | null | undefined,
  tenantLang: string | null | undefined,
  browser: readonly string[],
): Lang {
  return (
    normalizeLang(requested) ??
    normalizeLang(tenantLang) ??
    browser.map(normalizeLang).find((l): l is Lang => l !== null) ??
    "en"
  );
}
