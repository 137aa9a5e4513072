// The visitor's token and current conversation, kept in the iframe's storage under the widget key and, when
// the panel is embedded, copied to the host page's own storage through the loader (see HostCopy). The token
// is renewed shortly before it expires, presenting the old one so the visitor keeps the same id (and with it
// access to their earlier conversation).
import { auth, setIdentity } from "./identity";
import { HttpError, httpError } from "./sse";
import type { KV } from "./storage";

type Saved = { token?: string; expiresAt?: number; conversationId?: string };

/**
 * The copy in the host page's first-party storage, which survives where the frame's storage is partitioned
 * or refused (Safari, Brave, Firefox strict). It holds the token and conversation id only, as a JSON string:
 * `saved` is what the loader had at start (null when nothing), `keep` writes an update back.
 */
export type HostCopy = {
  saved: string | null;
  keep(value: string): void;
  /** The host page's signed visitor token (michi("identify", token)); never stored by the panel. */
  identity?: string;
};

/** Renew this long before expiry, so a request never leaves with a token about to lapse. */
const MARGIN_MS = 2 * 60_000;

export type Session = {
  token(force?: boolean): Promise<string>;
  conversationId(): string | undefined;
  setConversation(id: string | undefined): void;
  /** Keeps the token fresh while the panel is open; returns a stop function. */
  keepFresh(): () => void;
};

function read(text: string | null): Saved {
  try {
    const v: unknown = JSON.parse(text ?? "{}");
    if (!v || typeof v !== "object") return {};
    const o = v as Record<string, unknown>;
    return {
      token: typeof o.token === "string" ? o.token : undefined,
      expiresAt: typeof o.expiresAt === "number" ? o.expiresAt : undefined,
      conversationId: typeof o.conversationId === "string" ? o.conversationId : undefined,
    };
  } catch {
    return {};
  }
}

export function createSession(
  key: string,
  store: KV,
  now: () => number = Date.now,
  host?: HostCopy,
): Session {
  const storeKey = `michi.v1.${key}`;
  const state = read(store.get(storeKey));
  setIdentity(host?.identity);
  // A verified visitor continues their own latest conversation, wherever it was started: the session's
  // answer names it, so the one kept on this device is not used.
  let adopt = !!host?.identity;
  // The host's copy is first-party, so it wins; its token's expiry is not kept there, so a token that came
  // only from it is renewed (presenting it) before first use.
  const fromHost = read(host?.saved ?? null);
  if (fromHost.token) {
    if (fromHost.token !== state.token) state.expiresAt = undefined;
    state.token = fromHost.token;
    state.conversationId = fromHost.conversationId;
  }
  if (adopt) state.conversationId = undefined;
  const save = () => {
    store.set(storeKey, JSON.stringify(state));
    host?.keep(JSON.stringify({ token: state.token, conversationId: state.conversationId }));
  };
  let pending: Promise<string> | null = null;
  let keeping = false;
  let timer: ReturnType<typeof setTimeout> | undefined;

  // One timer at a time, re-planned after every renewal; a failed renewal is retried half a minute later.
  const plan = () => {
    clearTimeout(timer);
    if (!keeping || !state.token) return;
    const wait = Math.max(10_000, (state.expiresAt ?? 0) - now() - MARGIN_MS + 1000);
    timer = setTimeout(() => {
      session.token().then(plan, () => {
        timer = setTimeout(plan, 30_000);
      });
    }, wait);
  };

  async function renew(): Promise<string> {
    const headers = auth(state.token);
    const res = await fetch(`/api/widget/${encodeURIComponent(key)}/session`, { method: "POST", headers });
    if (!res.ok) {
      // A token the server no longer accepts is useless; the next attempt starts as a new visitor.
      if (res.status === 401) {
        state.token = undefined;
        state.expiresAt = undefined;
        save();
      }
      throw await httpError(res);
    }
    const body = (await res.json()) as { token?: unknown; expiresAt?: unknown; conversationId?: unknown };
    const expires = typeof body.expiresAt === "string" ? Date.parse(body.expiresAt) : Number.NaN;
    if (typeof body.token !== "string" || Number.isNaN(expires)) throw new Error("bad session answer");
    state.token = body.token;
    state.expiresAt = expires;
    if (adopt) {
      adopt = false;
      state.conversationId = typeof body.conversationId === "string" ? body.conversationId : undefined;
    }
    save();
    plan();
    return body.token;
  }

  const session: Session = {
    token(force = false) {
      const fresh = state.token && (state.expiresAt ?? 0) - now() > MARGIN_MS;
      if (fresh && !force) return Promise.resolve(state.token as string);
      pending ??= renew().finally(() => {
        pending = null;
      });
      return pending;
    },
    conversationId: () => state.conversationId,
    setConversation(id) {
      state.conversationId = id;
      save();
    },
    keepFresh() {
      keeping = true;
      plan();
      return () => {
        keeping = false;
        clearTimeout(timer);
      };
    },
  };
  return session;
}

/** Calls `fn` with the visitor's token; a token the server refuses is replaced once. */
export async function withToken<T>(session: Session, fn: (token: string) => Promise<T>): Promise<T> {
  try {
    return await fn(await session.token());
  } catch (e) {
    // A token the server refuses (secret rotated, tenant changed) is replaced once, then the error stands.
    if (e instanceof HttpError && e.status === 401) return fn(await session.token(true));
    throw e;
  }
}
