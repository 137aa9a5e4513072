"use client";

import { useEffect, useRef, useState } from "react";
import { LIVE_KINDS, type LiveEvent } from "@/shared/live-events";

// The console's live events (issue #28): the tenant's stream (/api/admin/[tenant]/live/events) through
// EventSource, which reconnects by itself and sends Last-Event-ID, so the server resumes after the last seq
// seen. When the server refuses a reconnection (it restarted, the database was away), EventSource gives up;
// the hook opens a new one after the last seq, a little later each time. Each event reaches `onEvent` once,
// in order.

const RETRY_MIN_MS = 1000;
const RETRY_MAX_MS = 30_000;

export type LiveStatus = "connecting" | "live" | "offline";

/**
 * Calls `onEvent` with every live event of the tenant after `after` (the seq the page was rendered at; the
 * newest when absent) while the component is mounted; returns whether the stream is live right now.
 */
export function useLiveEvents(
  tenantSlug: string,
  onEvent: (e: LiveEvent) => void,
  after?: number,
): LiveStatus {
  const handler = useRef(onEvent);
  handler.current = onEvent;
  const [status, setStatus] = useState<LiveStatus>("connecting");

  useEffect(() => {
    let last = after ?? null;
    let source: EventSource | null = null;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let retry = RETRY_MIN_MS;
    let stopped = false;

    const open = () => {
      const base = `/api/admin/${encodeURIComponent(tenantSlug)}/live/events`;
      const es = new EventSource(last === null ? base : `${base}?after=${last}`);
      source = es;
      const onMessage = (m: MessageEvent<string>) => {
        let e: LiveEvent;
        try {
          e = JSON.parse(m.data) as LiveEvent;
        } catch {
          return;
        }
        if (!Number.isSafeInteger(e.seq) || (last !== null && e.seq <= last)) return;
        last = e.seq;
        handler.current(e);
      };
      for (const kind of LIVE_KINDS) es.addEventListener(kind, onMessage);
      es.addEventListener("ready", (m) => {
        retry = RETRY_MIN_MS;
        setStatus("live");
        if (last === null) last = (JSON.parse((m as MessageEvent<string>).data) as { seq: number }).seq;
      });
      es.onerror = () => {
        if (es.readyState !== EventSource.CLOSED) return setStatus("connecting");
        setStatus("offline");
        if (stopped) return;
        timer = setTimeout(open, retry);
        retry = Math.min(retry * 2, RETRY_MAX_MS);
      };
    };
    open();
    return () => {
      stopped = true;
      clearTimeout(timer);
      source?.close();
    };
  }, [tenantSlug, after]);

  return status;
}
