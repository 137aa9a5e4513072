import "server-only";

// What the crawler treats as one page, and which pages a business asked for. Pure functions.

const TRACKING = /^(utm_[a-z]+|gclid|fbclid|mc_cid|mc_eid|_ga)$/i;

/** One spelling per page: no fragment, no tracking parameters, sorted query, lower-case host, no default port. */
export function normalizePageUrl(input: string, base?: string): string | null {
  let u: URL;
  try {
    u = new URL(input, base);
  } catch {
    return null;
  }
  if (u.protocol !== "https:") return null;
  u.hash = "";
  u.username = "";
  u.password = "";
  const params = [...u.searchParams.entries()].filter(([k]) => !TRACKING.test(k));
  params.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  u.search = params.length ? new URLSearchParams(params).toString() : "";
  if (u.pathname === "") u.pathname = "/";
  return u.toString();
}

/** A path pattern: `*` is any run of characters; a pattern without `*` matches that path and below it. */
export function pathPatternMatches(pattern: string, path: string): boolean {
  const p = pattern.trim();
  if (!p) return false;
  if (!p.includes("*"))
    return path === p || path.startsWith(p.endsWith("/") ? p : `${p}/`) || path.startsWith(p);
  const re = new RegExp(`^${p.split("*").map(escapeRe).join(".*")}$`);
  return re.test(path);
}

function escapeRe(s: string): string {
  return s.replace(/[.+?^${}()|[\]\\]/g, "\\$&");
}

/** Include (when any are given) then exclude, on the URL's path plus query. */
export function wantedByPatterns(
  url: string,
  include: readonly string[],
  exclude: readonly string[],
): boolean {
  const u = new URL(url);
  const path = `${u.pathname}${u.search}`;
  if (include.length > 0 && !include.some((p) => pathPatternMatches(p, path))) return false;
  return !exclude.some((p) => pathPatternMatches(p, path));
}
