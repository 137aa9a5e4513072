// The one list of routes whose next path segment is a secret (a password reset's, a sign-up's or an
// invitation's link token, a channel webhook's path key), and the redaction every log line that can carry a
// URL goes through: the production server's access and error lines and whatever Next prints
// (scripts/serve.mjs), and the platform's logger (src/lib/log.ts). Mailed links carry their token in the URL fragment, which browsers never
// send; these paths remain for links mailed before that (they redirect to the fragment form), for a token
// pasted into the path by hand, and as the backstop should a token reach a path some other way. Plain
// JavaScript, so the standalone server can load it beside itself (scripts/build.mjs copies it).
//
// A path is compared the way the router reads it, not as it was typed: `/signin//reset/x`, `/signin/reset\x`,
// `/%73ignin/reset/x`, `/invite;a=b/x` and `/invite/./x` all reach the same page as `/invite/x`, so each is
// decoded, its backslashes turned into slashes, its `;params` dropped, and its empty, `.` and `..` segments
// resolved before the routes are looked for in it (securePathOf). A spelling that names a secret route is
// written as the route's plain form with the secret replaced, whatever the original looked like.

/** Routes whose next path segment, or fragment, is a secret; `*` stands for any one segment. */
export const SECRET_ROUTES = ["/signin/reset", "/signup/confirm", "/invite", "/api/channels/*"];

export const REDACTED = "[redacted]";

const ROUTE_SEGMENTS = SECRET_ROUTES.map((r) => r.split("/").filter(Boolean));

const escapeRe = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
// The fragment form (`/invite#token`, `%23` in a quoted URL) and the plain spelling, found by pattern: a
// fragment is not part of the path, so the normalising pass below never sees it.
const SLASH = "(?:/|%2[fF])";
const NEXT = "(?:/|%2[fF]|#|%23)";
const SEGMENT = "[^/?#\\s\"'<>&\\\\%]*(?:%(?!2[fF]|23)[^/?#\\s\"'<>&\\\\%]*)*";
const PATTERN = new RegExp(
  `(${SECRET_ROUTES.map((r) =>
    r
      .split("/")
      .map((s) => (s === "*" ? "[^/?#\\s\"'<>&\\\\]+" : escapeRe(s)))
      .join(SLASH),
  ).join("|")})(${NEXT})(?!\\[redacted\\])${SEGMENT}`,
  "gi",
);

// A run of text that may be a path or end in one: from a slash (or backslash, or either escaped) to the end
// of the path (a query, a fragment, white space or a quote). `%3F` and `%23` are not ends: the router reads
// them as part of a segment.
const CANDIDATE = /(?:\/|\\|%2f|%5c)[^\s"'<>?#&]*/gi;

/** `%xx` escapes decoded, again while any remain (a log may show a doubly escaped path); malformed ones kept. */
function decodeEscapes(s) {
  let out = s;
  for (let i = 0; i < 3 && /%[0-9a-f]{2}/i.test(out); i++)
    out = out.replace(/%([0-9a-f]{2})/gi, (_, h) => String.fromCharCode(Number.parseInt(h, 16)));
  return out;
}

/** The segments of a path as the router resolves them: decoded, `\` as `/`, no `;params`, `.`/`..` applied. */
export function pathSegments(path) {
  const out = [];
  for (const raw of decodeEscapes(path).replace(/\\/g, "/").split("/")) {
    const seg = raw.split(";")[0] ?? "";
    if (seg === "" || seg === ".") continue;
    if (seg === "..") out.pop();
    else out.push(seg);
  }
  return out;
}

/** Where in `segs` a secret route starts with its secret after it: [start, route length], or null. */
function secretAt(segs) {
  for (let i = 0; i < segs.length; i++)
    for (const route of ROUTE_SEGMENTS) {
      if (segs.length <= i + route.length) continue;
      if (route.every((r, j) => r === "*" || r === segs[i + j]?.toLowerCase())) return [i, route.length];
    }
  return null;
}

/** The path with its secret replaced when it names a secret route in any spelling, else null. */
export function redactedPath(path) {
  const segs = pathSegments(path);
  const at = secretAt(segs);
  if (!at) return null;
  const [start, len] = at;
  return `/${[...segs.slice(0, start + len), REDACTED].join("/")}`;
}

/** The text with the secret segment of every secret route replaced by REDACTED. */
export function redactSecretPaths(text) {
  if (typeof text !== "string") return text;
  PATTERN.lastIndex = 0;
  const plain = text.replace(PATTERN, (_, route, sep) => `${route}${sep}${REDACTED}`);
  CANDIDATE.lastIndex = 0;
  return plain.replace(CANDIDATE, (run) => {
    const redacted = redactedPath(run);
    // Already in its redacted plain form (or nothing secret): the run stays as written.
    return redacted === null || redacted === run || run.endsWith(`/${REDACTED}`) ? run : redacted;
  });
}
