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

/**
 * A path pattern as the Tools page's help describes it: `*` is any run of characters (`/help/*` is every page
 * below /help); a pattern without `*` is that path and everything below it, on a segment boundary: `/blog`
 * takes /blog, /blog/post and /blog?page=2 but not /blogroll, which a plain prefix test used to take (and an
 * exclude of /blog used to drop). A trailing slash names the same section; `/` is the whole site.
 */
export function pathPatternMatches(pattern: string, path: string): boolean {
  const p = encodedPath(pattern.trim());
  if (!p) return false;
  if (!p.includes("*")) {
    const base = p.replace(/\/+$/, "");
    if (base === "") return true;
    return path === base || path.startsWith(`${base}/`) || path.startsWith(`${base}?`);
  }
  const re = new RegExp(`^${p.split("*").map(escapeRe).join(".*")}$`);
  return re.test(path);
}

/** The pattern spelled as URL paths are (an accent percent-encoded), so `/café` meets `/caf%C3%A9`. */
function encodedPath(p: string): string {
  if (!p.startsWith("/")) return p;
  try {
    return new URL(p, "https://pattern.invalid").pathname;
  } catch {
    return p;
  }
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
