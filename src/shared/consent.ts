// The contact form's consent sentence as the platform words it, in every widget language. A business that
// keeps the default gets it in the visitor's language; one that writes its own sets it per language on the
// Bot page.

import type { Lang } from "./languages";

export const DEFAULT_CONSENTS: Record<Lang, string> = {
  en: "I agree that the business may store these details and contact me about this request.",
  es: "Acepto que el negocio guarde estos datos y me contacte sobre esta solicitud.",
  fr: "J'accepte que l'entreprise conserve ces coordonnées et me contacte au sujet de cette demande.",
  de: "Ich bin einverstanden, dass das Unternehmen diese Angaben speichert und mich zu dieser Anfrage kontaktiert.",
  ja: "この情報が保存され、本件について事業者から連絡を受けることに同意します。",
};

/**
 * The consent sentence a visitor in `lang` is shown (and that their request stores): the business's own for
 * that language, else the platform's default in it when the main text is the default, else the main text.
 */
export function consentIn(
  consents: Partial<Record<string, string>> | undefined,
  lang: Lang,
  main: string,
): string {
  const own = consents?.[lang]?.trim().slice(0, 500);
  if (own) return own;
  return main === DEFAULT_CONSENTS.en ? DEFAULT_CONSENTS[lang] : main;
}
