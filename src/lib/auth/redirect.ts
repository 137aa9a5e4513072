import "server-only";
import { redirect } from "next/navigation";

/** Only same-site paths may be a post-sign-in destination; anything else would be an open redirect. */
export function safeCallbackPath(value: unknown, fallback = "/admin"): string {
  if (typeof value !== "string" || !value.startsWith("/") || value.startsWith("//") || value.includes("\\"))
    return fallback;
  try {
    const u = new URL(value, "http://x");
    return u.origin === "http://x" ? `${u.pathname}${u.search}` : fallback;
  } catch {
    return fallback;
  }
}

export function redirectToSignIn(callbackPath: string): never {
  redirect(`/signin?callbackUrl=${encodeURIComponent(safeCallbackPath(callbackPath))}`);
}
