import "server-only";
import type { LiveEvent, LiveKind } from "@/shared/live-events";
import type { DbHandle } from "../db";
import { readLiveEvents } from "../db/queries/live-events";
import { processSlot } from "../process-slot";
import { joinLiveFeed, liveEncode } from "./feed";

// One held live stream: Server-Sent Events read from the log (drizzle/0027) after a cursor. A wake-up
// (src/lib/live/bus.ts) only says "read again"; the rows, their order and the cursor come from the log, so a
// duplicated, late or lost wake-up can never duplicate, reorder or lose an event. A lost one costs at most
// the slow re-read below.

export type LiveStreamInput = {
  db: DbHandle;
  tenantId: string;
  /** One conversation (the visitor's stream); the whole tenant's log when absent (the console). */
  conversationId?: string;
  /** Only these kinds (a visitor's stream: what a visitor may see). */
  kinds?: readonly LiveKind[];
  /** The last seq the client has (Last-Event-ID). */
  after: number;
  signal?: AbortSignal;
  /** Tests shorten these; production uses the defaults. */
  heartbeatMs?: number;
  resyncMs?: number;
  /**
   * Ends the stream after this long: the client reconnects from its last seq through the guard again, so an
   * expired token or a revoked session stops receiving (the data path loses nothing).
   */
  maxMs?: number;
  /** Runs once when the stream ends, whatever the reason (the route's slot accounting). */
  onClose?: () => void;
};

const PAGE = 200;
const HEARTBEAT_MS = 20_000;
/** Re-read even without a wake-up this often: the wake-up lost in a crash or a dropped LISTEN only delays. */
const RESYNC_MS = 30_000;

/**
 * The SSE encoding: `id:` is the seq, `event:` the kind; `data` is the LiveEvent. JSON never holds a raw
 * newline, so one data line is enough. `ready` (with the cursor as its id) follows the first read: the client
 * has caught up.
 */
export const encodeLiveEvent: (e: LiveEvent) => string = liveEncode;

// Every held stream of the process, so a shutdown can end them at once (scripts/serve.mjs calls
// globalThis.__michiLiveDrain): held streams never finish by themselves, and their clients resume on another
// instance from their last seq, so there is nothing to wait for.
const held = processSlot<Set<() => void>>("LiveHeld");
processSlot<() => void>("LiveDrain").set(() => {
  for (const close of [...(held.get() ?? [])]) close();
});

/** A read's rows as SSE text, and after the first read the `ready` line: the client has caught up. */
function encodeRead(rows: readonly LiveEvent[], after: number, first: boolean) {
  let text = "";
  let cursor = after;
  for (const r of rows) {
    text += encodeLiveEvent(r);
    cursor = r.seq;
  }
  // With an id, so EventSource resumes from here even when the log had nothing to send yet.
  if (first) text += `id: ${cursor}\nevent: ready\ndata: {"seq":${cursor}}\n\n`;
  return { text, cursor };
}

export function liveEventStream(input: LiveStreamInput): ReadableStream<Uint8Array> {
  const enc = new TextEncoder();
  const { db, tenantId, conversationId, kinds } = input;
  let cursor = input.after;
  let closed = false;
  let reading = false;
  let again = false;
  let ready = false;
  let joined = false;
  let heartbeat: NodeJS.Timeout | undefined;
  let resync: NodeJS.Timeout | undefined;
  let lifetime: NodeJS.Timeout | undefined;
  let controller!: ReadableStreamDefaultController<Uint8Array>;

  const close = () => {
    if (closed) return;
    closed = true;
    held.get()?.delete(close);
    feed.leave();
    clearTimeout(heartbeat);
    clearInterval(resync);
    clearTimeout(lifetime);
    input.signal?.removeEventListener("abort", onAbort);
    try {
      controller.close();
    } catch {
      // already cancelled by the reader
    }
    input.onClose?.();
  };
  const onAbort = () => close();
  const write = (text: string) => {
    if (closed) return;
    try {
      controller.enqueue(enc.encode(text));
    } catch {
      close();
    }
  };

  // Until it joins the tenant's feed (src/lib/live/feed.ts), the stream catches up with reads of its own,
  // one at a time (a wake-up during a read asks for one more; a full page reads on at once). Then the feed
  // hands it its rows, and this reads no more.
  const pump = async () => {
    if (reading || joined) {
      again = true;
      return;
    }
    reading = true;
    try {
      do {
        again = false;
        const seenAt = await feed.position();
        const rows = await readLiveEvents(db, tenantId, {
          after: cursor,
          conversationId,
          kinds,
          limit: PAGE,
        });
        if (closed) return;
        const out = encodeRead(rows, cursor, !ready);
        cursor = out.cursor;
        ready = true;
        if (out.text) write(out.text);
        if (rows.length === PAGE) again = true;
        else if (feed.join(seenAt)) joined = true;
        else again = true;
      } while (again && !closed && !joined);
    } catch {
      // The database is away: the stream stays open and the next wake-up or re-read tries again.
    } finally {
      reading = false;
    }
  };
  const feed = joinLiveFeed(db, tenantId, {
    conversationId,
    kinds: kinds ? new Set(kinds) : undefined,
    cursor: () => cursor,
    deliver(text, last) {
      cursor = last;
      write(text);
    },
    woken: () => void pump(),
  });

  return new ReadableStream<Uint8Array>({
    start(c) {
      controller = c;
      if (input.signal?.aborted) return close();
      input.signal?.addEventListener("abort", onAbort, { once: true });
      held.use(() => new Set()).add(close);
      // Streams opened together (a burst of visitors, every client of a restarted instance coming back in
      // the same second) would beat together for as long as they are held: hundreds of writes in one moment,
      // every 20 s. Each stream's first beat falls at a random point of the interval instead, so many held
      // streams make a steady trickle; no gap is longer than the interval.
      const beatMs = input.heartbeatMs ?? HEARTBEAT_MS;
      const beat = () => {
        write(": keep-alive\n\n");
        // A failed write closes the stream, and the close has already cleared this (fired) timer.
        if (!closed) heartbeat = setTimeout(beat, beatMs).unref();
      };
      heartbeat = setTimeout(beat, beatMs * Math.random()).unref();
      // Spread the re-reads of many held streams, so they do not all land on the database at once.
      const every = (input.resyncMs ?? RESYNC_MS) * (0.75 + Math.random() / 2);
      resync = setInterval(() => (joined ? feed.resync(every) : void pump()), every);
      resync.unref();
      if (input.maxMs !== undefined) lifetime = setTimeout(close, Math.max(0, input.maxMs));
      // EventSource waits this long before it reconnects (after a lifetime's end, a restart).
      write("retry: 1000\n\n");
      void pump();
    },
    cancel() {
      close();
    },
  });
}
