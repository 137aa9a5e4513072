// Why a page was skipped, and why a document failed, in the words the Knowledge page shows.

export const REASONS: Record<string, string> = {
  robots: "robots.txt",
  noindex: "noindex",
  duplicate: "duplicate",
  too_large: "too large",
  off_domain: "off your domains",
  excluded: "excluded",
  not_html: "not a page",
  empty: "no text",
  not_found: "not found",
};

const DOC_FAILURES: Record<string, string> = {
  too_large: "too large",
  zip_bomb: "zip bomb",
  unsupported_type: "not a supported type",
  unreadable: "unreadable",
  empty: "no text",
};

export function documentState(status: string | null, reason: string | null): string {
  if (status === "indexed") return "indexed";
  if (status !== "failed") return "processing";
  const [kind, ...rest] = (reason ?? "unreadable").split(": ");
  return `failed: ${DOC_FAILURES[kind ?? ""] ?? kind}${rest.length ? ` (${rest.join(": ")})` : ""}`;
}

export const mb = (n: number) => `${Math.round((n / 1024 / 1024) * 10) / 10} MB`;
