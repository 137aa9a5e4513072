// The visitor's contact form, checked the same way in the panel (before sending) and on the server (which
// decides). Plain code, no zod: the panel bundle has a size budget. Problems are codes; each side words them
// in the visitor's language (src/shared/handoff-words.ts).

export const CONTACT_LIMITS = { name: 100, email: 254, phone: 40, message: 2000 } as const;

export type ContactInput = { name: string; email: string; phone: string; message: string; consent: boolean };

export type ContactProblem =
  | "email_invalid"
  | "phone_invalid"
  | "reach_needed"
  | "message_needed"
  | "too_long"
  | "consent_needed";

/** The field each problem belongs to ("reach_needed" sits on the e-mail field). */
export type ContactField = "name" | "email" | "phone" | "message" | "consent";

// One @, something on both sides, a dot in the domain, no spaces: the rest is for the mail server to judge.
const EMAIL = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/;
// Digits with the usual separators and an optional leading +; at least six digits.
const PHONE = /^\+?[0-9 ().\-/]+$/;

const clean = (s: unknown) => (typeof s === "string" ? s.replaceAll("\u0000", "").trim() : "");

/** Trims every field and drops NUL (Postgres text cannot hold it). */
export function normaliseContact(raw: Record<string, unknown>): ContactInput {
  return {
    name: clean(raw.name),
    email: clean(raw.email),
    phone: clean(raw.phone),
    message: clean(raw.message),
    consent: raw.consent === true,
  };
}

/** The form's problems by field; empty when it may be sent. `needsConsent` is false when there is no text. */
export function contactProblems(
  c: ContactInput,
  needsConsent = true,
): Partial<Record<ContactField, ContactProblem>> {
  const out: Partial<Record<ContactField, ContactProblem>> = {};
  if (c.name.length > CONTACT_LIMITS.name) out.name = "too_long";
  if (c.email && (c.email.length > CONTACT_LIMITS.email || !EMAIL.test(c.email))) out.email = "email_invalid";
  if (c.phone) {
    const digits = c.phone.replace(/\D/g, "").length;
    if (c.phone.length > CONTACT_LIMITS.phone || !PHONE.test(c.phone) || digits < 6)
      out.phone = "phone_invalid";
  }
  if (!c.email && !c.phone) out.email = "reach_needed";
  if (!c.message) out.message = "message_needed";
  else if (c.message.length > CONTACT_LIMITS.message) out.message = "too_long";
  if (needsConsent && !c.consent) out.consent = "consent_needed";
  return out;
}

/**
 * A mailto: link to one address. Everything but its @ is percent-encoded, so nothing a visitor typed can
 * become part of the link's query: "x@y.test?bcc=a%40evil.test" stays one (odd) address, never a Bcc.
 */
export function mailtoHref(address: string): string {
  return `mailto:${encodeURIComponent(address.trim()).replaceAll("%40", "@")}`;
}

/** A tel: link: an optional leading + and the digits, nothing else. */
export function telHref(phone: string): string {
  const t = phone.trim();
  return `tel:${t.startsWith("+") ? "+" : ""}${t.replace(/\D/g, "")}`;
}
