"use client";

import { type ReactNode, useEffect, useRef, useState } from "react";

// A mailed link's token travels in the URL fragment (/invite#<token>), which the browser never sends: no
// server, proxy or access log sees it. This reads it once, keeps it for the tab (sessionStorage, so a reload
// or the way back from signing in still finds it), takes it out of the address bar and the history entry,
// and asks the server for the page through a POST (`open`) that carries the token in its body.

type Open = (prev: unknown, form: FormData) => Promise<ReactNode>;

function takeToken(storageKey: string): string {
  const fromHash = window.location.hash.slice(1);
  if (fromHash) {
    let token = fromHash;
    try {
      token = decodeURIComponent(fromHash);
    } catch {
      // A malformed escape is kept as it is; the server answers that the link is not valid.
    }
    window.sessionStorage.setItem(storageKey, token);
    const { pathname, search } = window.location;
    window.history.replaceState(window.history.state, "", `${pathname}${search}`);
    return token;
  }
  return window.sessionStorage.getItem(storageKey) ?? "";
}

export function FragmentLink({
  storageKey,
  open,
  failed,
  children,
}: {
  storageKey: string;
  open: Open;
  /** Shown when the server could not be asked (offline, an error). */
  failed: ReactNode;
  /** Shown while the page is being fetched. */
  children: ReactNode;
}) {
  const [view, setView] = useState<ReactNode>(null);
  // Asked once per page view: new props from a refresh of the page must not ask (and render) again.
  const given = useRef({ open, failed });
  useEffect(() => {
    let live = true;
    const form = new FormData();
    form.set("token", takeToken(storageKey));
    given.current.open(null, form).then(
      (v) => live && setView(v),
      () => live && setView(given.current.failed),
    );
    return () => {
      live = false;
    };
  }, [storageKey]);
  return <>{view ?? children}</>;
}
