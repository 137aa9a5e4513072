import { AsyncLocalStorage } from "node:async_hooks";
import type { SessionClaims } from "@/lib/auth/claims";

// Stand-ins for the request-bound parts of Next that do not exist outside a server: the session source,
// cookies and headers, and cache revalidation. Use from a test file:
//
//   vi.mock("@/lib/auth/claims", () => import("../support/admin-mocks").then((m) => m.claimsModule));
//   vi.mock("next/headers", () => import("../support/admin-mocks").then((m) => m.headersModule));
//   vi.mock("next/cache", () => import("../support/admin-mocks").then((m) => m.cacheModule));

type State = { claims: SessionClaims | null; cookies: Map<string, string>; headers: Headers };
const g = globalThis as unknown as { __michiTestRequest?: State };
function state(): State {
  g.__michiTestRequest ??= { claims: null, cookies: new Map(), headers: new Headers() };
  return g.__michiTestRequest;
}

/** Makes the next guarded call come from this user (with their current session version), or signed out. */
export function actAs(user: { id: string; sessionVersion: number } | null): void {
  state().claims = user ? { uid: user.id, sv: user.sessionVersion } : null;
}

const perCall = new AsyncLocalStorage<SessionClaims | null>();

/** Runs `fn` as `user` without touching the default identity, so concurrent calls can act as different people. */
export function runAs<T>(
  user: { id: string; sessionVersion: number } | null,
  fn: () => Promise<T>,
): Promise<T> {
  return perCall.run(user ? { uid: user.id, sv: user.sessionVersion } : null, fn);
}

export function setRequestHeaders(init: Record<string, string>): void {
  state().headers = new Headers(init);
}

export const cookieJar = {
  get: (name: string) => {
    const value = state().cookies.get(name);
    return value === undefined ? undefined : { name, value };
  },
  getAll: () => [...state().cookies].map(([name, value]) => ({ name, value })),
  set: (name: string, value: string, options?: { maxAge?: number }) => {
    if (options?.maxAge === 0 || value === "") state().cookies.delete(name);
    else state().cookies.set(name, value);
  },
  delete: (name: string) => state().cookies.delete(name),
  has: (name: string) => state().cookies.has(name),
  clear: () => state().cookies.clear(),
};

export const claimsModule = {
  readSessionClaims: async () => {
    const scoped = perCall.getStore();
    return scoped === undefined ? state().claims : scoped;
  },
};

/** What a thrown redirect()/notFound() meant, read from the digest Next gives those errors. */
export function nextControl(e: unknown): { kind: "redirect"; url: string } | { kind: "not_found" } | null {
  const digest = (e as { digest?: unknown } | null)?.digest;
  if (typeof digest !== "string") return null;
  if (digest.startsWith("NEXT_REDIRECT;")) return { kind: "redirect", url: digest.split(";")[2] ?? "" };
  if (digest === "NEXT_HTTP_ERROR_FALLBACK;404") return { kind: "not_found" };
  return null;
}

/** Runs `fn` and reports how it ended: a value, a Next redirect or 404, or another error. */
export async function outcome<T>(
  fn: () => Promise<T>,
): Promise<
  | { kind: "value"; value: T }
  | { kind: "redirect"; url: string }
  | { kind: "not_found" }
  | { kind: "error"; error: unknown }
> {
  try {
    return { kind: "value", value: await fn() };
  } catch (e) {
    return nextControl(e) ?? { kind: "error", error: e };
  }
}

export const headersModule = {
  cookies: async () => cookieJar,
  headers: async () => state().headers,
  draftMode: async () => ({ isEnabled: false }),
};

export const cacheModule = {
  revalidatePath: () => {},
  revalidateTag: () => {},
  updateTag: () => {},
  refresh: () => {},
  unstable_cache: <T>(fn: T) => fn,
};
