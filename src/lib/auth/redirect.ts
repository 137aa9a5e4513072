import "server-only";
import { redirect } from "next/navigation";

// Characters that make a browser or a proxy read a path as something else: control characters (the URL
// parser drops tabs and newlines, so "/\t/evil.test" would become "//evil.test"), backslashes (read as "/"
// in http URLs) and encoded slashes (decoded by some proxies before routing).
const AMBIGUOUS = /\\|%2f|%5c/i;
const hasControl = (s: string) => [...s].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f);

/** A path is same-origin only if it starts with one "/" and the next character cannot start an authority. */
function isLocalPath(path: string): boolean {
  return path.startsWith("/") && !path.startsWith("//") && !AMBIGUOUS.test(path) && !hasControl(path);
}

/**
 * Only same-site paths may be a post-sign-in destination; anything else would be an open redirect. The check
 * runs on the normalised result as well as on the input: dot segments ("/.//evil.test", "/a/..//evil.test",
 * "/%2e//evil.test") normalise to "//evil.test", which a browser follows to another host.
 */
export function safeCallbackPath(value: unknown, fallback = "/admin"): string {
  if (typeof value !== "string" || !isLocalPath(value)) return fallback;
  try {
    const base = "http://michi.invalid";
    const u = new URL(value, base);
    const path = `${u.pathname}${u.search}`;
    if (u.origin !== base || !isLocalPath(path)) return fallback;
    // Normalising again must change nothing, or a second parser (the browser's) could read it differently.
    const again = new URL(path, base);
    return again.origin === base && `${again.pathname}${again.search}` === path ? path : fallback;
  } catch {
    return fallback;
  }
}

export function redirectToSignIn(callbackPath: string): never {
  redirect(`/signin?callbackUrl=${encodeURIComponent(safeCallbackPath(callbackPath))}`);
}
