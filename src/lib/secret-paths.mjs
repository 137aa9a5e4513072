// The one list of routes whose next path segment is a secret (a password reset's or an invitation's link
// token), and the redaction every log line that can carry a URL goes through: the production server's access
// and error lines and whatever Next prints (scripts/serve.mjs), and the platform's logger (src/lib/log.ts).
// Mailed links carry their token in the URL fragment, which browsers never send; these paths remain for links
// mailed before that (they redirect to the fragment form), for a token pasted into the path by hand, and as
// the backstop should a token reach a path some other way. Plain JavaScript, so the standalone server can load
// it beside itself (scripts/build.mjs copies it).

/** Routes whose next path segment, or fragment, is a secret. */
export const SECRET_ROUTES = ["/signin/reset", "/invite"];

export const REDACTED = "[redacted]";

const escapeRe = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
// A slash may also be written %2F and a hash %23 (a callbackUrl in a query string, a URL quoted in another).
const SLASH = "(?:/|%2[fF])";
const NEXT = "(?:/|%2[fF]|#|%23)";
const SEGMENT = "[^/?#\\s\"'<>&\\\\%]*(?:%(?!2[fF]|23)[^/?#\\s\"'<>&\\\\%]*)*";
const PATTERN = new RegExp(
  `(${SECRET_ROUTES.map((r) => r.split("/").map(escapeRe).join(SLASH)).join("|")})(${NEXT})(?!\\[redacted\\])${SEGMENT}`,
  "gi",
);

/** The text with the secret segment of every secret route replaced by REDACTED. */
export function redactSecretPaths(text) {
  if (typeof text !== "string") return text;
  PATTERN.lastIndex = 0;
  return text.replace(PATTERN, (_, route, sep) => `${route}${sep}${REDACTED}`);
}
