// The panel's side of the loader conversation. Messages go only to the embedding page's origin, which the
// server checked against the tenant's list before writing it into the config; messages are accepted only
// from the parent window at that origin and for this widget key.

export type FromLoader = { type: "open"; focus: boolean } | { type: "close" };

export type Bridge = {
  framed: boolean;
  /** "answer": a reply settled, so the launcher can mark it unread while the panel is closed. */
  send(type: "ready" | "close" | "answer"): void;
  listen(fn: (m: FromLoader) => void): () => void;
};

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
  };
}
