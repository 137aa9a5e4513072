// A business's address (/admin/<slug>): the rule, and the one derived from a name. Shared by the server
// (sign-up and the operator's form derive it) and the operator's form, which fills it in as the name is typed.

export const SLUG_RE = /^[a-z0-9](?:[a-z0-9-]{0,38}[a-z0-9])?$/;

/** A URL-safe slug from a business name: "Café Michi!" → "cafe-michi". */
export function slugify(name: string): string {
  const base = name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 34)
    .replace(/-+$/g, "");
  return base && SLUG_RE.test(base) ? base : "business";
}
