"use client";

import { useRouter } from "next/navigation";
import { useCallback, useEffect, useRef, useState } from "react";
import { useLiveEvents } from "@/components/live/use-live-events";
import type { PlainActionFn } from "@/lib/auth/action";
import type { LiveEvent } from "@/shared/live-events";

// Keeps the console current: every live event of the business re-renders the page from the server (the
// queue, the open conversation), a new waiting visitor rings and shows a browser notification, and while the
// console is open an agent's presence is kept with a heartbeat (away when they say so).

const REFRESH_GAP_MS = 250;

/** A short two-tone chime, made on the spot: no audio file to ship or fetch. */
function chime() {
  try {
    const ctx = new AudioContext();
    for (const [i, freq] of [880, 660].entries()) {
      const osc = ctx.createOscillator();
      const gain = ctx.createGain();
      osc.frequency.value = freq;
      gain.gain.value = 0.08;
      osc.connect(gain).connect(ctx.destination);
      osc.start(ctx.currentTime + i * 0.18);
      osc.stop(ctx.currentTime + i * 0.18 + 0.15);
    }
  } catch {
    // no audio (autoplay rules, no device): the notification and the queue still show it
  }
}

export function LiveWatcher({
  tenantSlug,
  after,
  heartbeat,
  beatMs,
  away,
  canAnswer,
}: {
  tenantSlug: string;
  after: number;
  heartbeat: PlainActionFn;
  beatMs: number;
  away: boolean;
  canAnswer: boolean;
}) {
  const router = useRouter();
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const [permission, setPermission] = useState<NotificationPermission | "unsupported">("default");
  const [lastNotice, setLastNotice] = useState<string | null>(null);

  useEffect(() => {
    setPermission(typeof Notification === "undefined" ? "unsupported" : Notification.permission);
  }, []);

  const onEvent = useCallback(
    (e: LiveEvent) => {
      if (e.kind === "state" && e.data.state === "waiting") {
        const text = "A visitor is waiting for a person.";
        setLastNotice(text);
        chime();
        if (typeof Notification !== "undefined" && Notification.permission === "granted") {
          new Notification("Live chat", { body: text, tag: `live-${e.conversationId}` });
        }
      }
      // Several events in a burst (a claim and its first reply) re-render once.
      clearTimeout(timer.current);
      timer.current = setTimeout(() => router.refresh(), REFRESH_GAP_MS);
    },
    [router],
  );
  const status = useLiveEvents(tenantSlug, onEvent, after);

  useEffect(() => {
    if (!canAnswer) return;
    const beat = () => void heartbeat({}, new FormData()).catch(() => {});
    beat();
    const id = setInterval(beat, beatMs);
    return () => clearInterval(id);
  }, [canAnswer, heartbeat, beatMs]);

  const setAway = (value: boolean) => {
    const fd = new FormData();
    fd.set("away", String(value));
    void heartbeat({}, fd).then(() => router.refresh());
  };

  return (
    <div className="flex flex-wrap items-center gap-3 text-sm" data-live-status={status}>
      <span role="status">
        {status === "live"
          ? "Live: new messages appear here by themselves."
          : status === "connecting"
            ? "Connecting…"
            : "Connection lost. Reconnecting…"}
      </span>
      {canAnswer ? (
        <button
          type="button"
          className="btn btn-secondary"
          aria-pressed={away}
          onClick={() => setAway(!away)}
        >
          {away ? "I'm back" : "Set me as away"}
        </button>
      ) : (
        <span className="muted">You can follow the conversations; only admins and owners can answer.</span>
      )}
      {permission === "default" ? (
        <button
          type="button"
          className="btn btn-secondary"
          onClick={() => void Notification.requestPermission().then(setPermission)}
        >
          Turn on notifications
        </button>
      ) : null}
      {lastNotice ? (
        <span role="alert" className="font-semibold">
          {lastNotice}
        </span>
      ) : null}
    </div>
  );
}
