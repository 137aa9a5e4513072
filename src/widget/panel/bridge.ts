// The panel's side of the loader conversation. Messages go only to the embedding page's origin, which the
// server checked against the tenant's list before writing it into the config; messages are accepted only
// from the parent window at that origin and for this widget key.
import type { HostCopy } from "./session";

export type FromLoader = { type: "open"; focus: boolean } | { type: "close" };

export type Bridge = {
  framed: boolean;
  /** "answer": a reply settled, so the launcher can mark it unread while the panel is closed. */
  send(type: "ready" | "close" | "answer"): void;
  listen(fn: (m: FromLoader) => void): () => void;
  /**
   * Asks the loader for the session copy it keeps in the host page's storage ("s" with no value; it answers
   * "s" with the stored string or nothing). Resolves undefined when not embedded, and after a short wait when
   * no answer comes (a loader from before this message, cached by the browser).
   */
  hostCopy(): Promise<HostCopy | undefined>;
};

const HOST_WAIT_MS = 1500;

export function createBridge(key: string, parentOrigin: string | null, win: Window = window): Bridge {
  const parent = win.parent;
  const framed = !!parentOrigin && parent !== win;
  return {
    framed,
    send(type) {
      if (framed && parentOrigin) parent.postMessage({ michi: key, type }, parentOrigin);
    },
    listen(fn) {
      const onMessage = (e: MessageEvent) => {
        if (!framed || e.source !== parent || e.origin !== parentOrigin) return;
        const d = e.data as { michi?: unknown; type?: unknown; focus?: unknown } | null;
        if (!d || d.michi !== key) return;
        if (d.type === "open") fn({ type: "open", focus: d.focus === true });
        else if (d.type === "close") fn({ type: "close" });
      };
      win.addEventListener("message", onMessage);
      return () => win.removeEventListener("message", onMessage);
    },
    hostCopy() {
      if (!framed || !parentOrigin) return Promise.resolve(undefined);
      const keep = (s: string) => parent.postMessage({ michi: key, type: "s", s }, parentOrigin);
      return new Promise((resolve) => {
        const done = (copy: HostCopy | undefined) => {
          clearTimeout(timer);
          win.removeEventListener("message", onMessage);
          resolve(copy);
        };
        const onMessage = (e: MessageEvent) => {
          if (e.source !== parent || e.origin !== parentOrigin) return;
          const d = e.data as { michi?: unknown; type?: unknown; s?: unknown; i?: unknown } | null;
          if (d?.michi !== key || d.type !== "s") return;
          const identity = typeof d.i === "string" && d.i ? d.i : undefined;
          done({ saved: typeof d.s === "string" ? d.s : null, keep, identity });
        };
        const timer = setTimeout(() => done(undefined), HOST_WAIT_MS);
        win.addEventListener("message", onMessage);
        parent.postMessage({ michi: key, type: "s" }, parentOrigin);
      });
    },
  };
}
