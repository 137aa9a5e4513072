import "server-only";
import type { LiveEvent, LiveKind } from "@/shared/live-events";
import type { DbHandle } from "../db";
import { liveTail, readLiveEvents } from "../db/queries/live-events";
import { processSlot } from "../process-slot";
import { onLiveWake } from "./bus";

// One reader per tenant and process for the held live streams (src/lib/live/stream.ts). Without it, every
// stream woken by a message read the log on its own: the visitor's stream and each open console, one round
// trip each, for one row. The feed reads the tenant's log once per wake-up, after the position up to which it
// has handed every row to every stream that joined it, and hands each stream the rows it may see (its
// conversation, its kinds: a visitor never gets a note) and has not had (seq above its cursor).
//
// Why joining is safe: a tenant's seq order is its commit order (michi_append_live_event takes a lock), so a
// read that saw seq F saw every row up to F. A stream catches up with reads of its own, each begun after the
// feed's position was P; it joins only if the feed's position is still P when that read ends, so every row up
// to P reached it by itself, and every row after P reaches it through the feed.

const PAGE = 200;

/** A held stream as the feed sees it. */
export type FeedStream = {
  /** Its conversation; absent: the whole tenant (the console). */
  conversationId?: string;
  kinds?: ReadonlySet<LiveKind>;
  /** The last seq it has. */
  cursor(): number;
  /** Rows for it, already encoded, and the last one's seq. */
  deliver(text: string, last: number): void;
  /** While it has not joined: a wake-up that may concern it (it reads by itself again). */
  woken(): void;
};

type Feed = {
  db: DbHandle;
  tenantId: string;
  /** Every row up to here has reached every joined stream; null until the tenant's tail is known. */
  position: number | null;
  tail: Promise<number> | null;
  joined: Set<FeedStream>;
  waiting: Set<FeedStream>;
  /** Joined streams per conversation, and of the whole tenant: which wake-ups concern this process. */
  byConversation: Map<string, number>;
  wholeTenant: number;
  /** A wake-up came that no joined stream needed: the next joiner makes the feed read. */
  stale: boolean;
  reading: boolean;
  again: boolean;
  lastReadAt: number;
  unsubscribe: () => void;
};

const feeds = processSlot<Map<DbHandle, Map<string, Feed>>>("LiveFeeds");

export type FeedHandle = {
  /** The feed's position, once the tenant's tail is known: read by yourself after it, then `join` with it. */
  position(): Promise<number>;
  /** Joins if the feed is still at `seenAt` (true); otherwise read again from the stream's cursor first. */
  join(seenAt: number): boolean;
  /** The stream's slow re-read: the feed reads if nobody made it read lately. */
  resync(everyMs: number): void;
  leave(): void;
};

export function liveEncode(e: LiveEvent): string {
  return `id: ${e.seq}\nevent: ${e.kind}\ndata: ${JSON.stringify(e)}\n\n`;
}

function concerns(f: Feed, woken: string | null): boolean {
  return woken === null || f.wholeTenant > 0 || f.byConversation.has(woken);
}

async function pump(f: Feed): Promise<void> {
  if (f.reading) {
    f.again = true;
    return;
  }
  if (f.position === null || f.joined.size === 0) return;
  f.reading = true;
  try {
    do {
      f.again = false;
      // This read covers every wake-up so far, the ones no joined stream needed too.
      f.stale = false;
      f.lastReadAt = performance.now();
      const rows = await readLiveEvents(f.db, f.tenantId, { after: f.position, limit: PAGE });
      const out = new Map<FeedStream, { text: string; last: number }>();
      for (const r of rows) {
        let text: string | undefined;
        for (const s of f.joined) {
          if (s.conversationId !== undefined && s.conversationId !== r.conversationId) continue;
          if (s.kinds && !s.kinds.has(r.kind)) continue;
          if (r.seq <= s.cursor()) continue;
          text ??= liveEncode(r);
          const o = out.get(s);
          if (o) {
            o.text += text;
            o.last = r.seq;
          } else out.set(s, { text, last: r.seq });
        }
        f.position = r.seq;
      }
      for (const [s, o] of out) s.deliver(o.text, o.last);
      if (rows.length === PAGE) f.again = true;
    } while (f.again && f.joined.size > 0);
  } catch {
    // The database is away: the next wake-up or re-read tries again.
    f.stale = true;
  } finally {
    f.reading = false;
  }
}

function count(f: Feed, s: FeedStream, by: 1 | -1) {
  if (s.conversationId === undefined) {
    f.wholeTenant += by;
    return;
  }
  const n = (f.byConversation.get(s.conversationId) ?? 0) + by;
  if (n > 0) f.byConversation.set(s.conversationId, n);
  else f.byConversation.delete(s.conversationId);
}

/** The tenant's feed for one held stream, from its start to its end (`leave`). */
export function joinLiveFeed(db: DbHandle, tenantId: string, stream: FeedStream): FeedHandle {
  const all = feeds.use(() => new Map());
  let ofDb = all.get(db);
  if (!ofDb) {
    ofDb = new Map();
    all.set(db, ofDb);
  }
  let f = ofDb.get(tenantId);
  if (!f) {
    const feed: Feed = {
      db,
      tenantId,
      position: null,
      tail: null,
      joined: new Set(),
      waiting: new Set(),
      byConversation: new Map(),
      wholeTenant: 0,
      stale: false,
      reading: false,
      again: false,
      lastReadAt: 0,
      unsubscribe: () => {},
    };
    feed.unsubscribe = onLiveWake(db, tenantId, (woken) => {
      for (const s of feed.waiting)
        if (woken === null || s.conversationId === undefined || s.conversationId === woken) s.woken();
      if (concerns(feed, woken)) void pump(feed);
      else feed.stale = true;
    });
    ofDb.set(tenantId, feed);
    f = feed;
  }
  const feed = f;
  feed.waiting.add(stream);
  let left = false;
  return {
    async position() {
      if (feed.position !== null) return feed.position;
      // Where the feed starts: the tenant's newest row, read before any stream's own catching-up read.
      feed.tail ??= db.forTenant(tenantId, (tx) => liveTail(tx));
      try {
        const tail = await feed.tail;
        feed.position ??= tail;
      } finally {
        feed.tail = null;
      }
      return feed.position;
    },
    join(seenAt) {
      if (left || feed.position !== seenAt) return false;
      if (!feed.waiting.delete(stream)) return true;
      feed.joined.add(stream);
      count(feed, stream, 1);
      // A wake-up that came while no joined stream needed it may have been this stream's.
      if (feed.stale) {
        feed.stale = false;
        void pump(feed);
      }
      return true;
    },
    resync(everyMs) {
      if (performance.now() - feed.lastReadAt >= everyMs / 2) void pump(feed);
    },
    leave() {
      if (left) return;
      left = true;
      feed.waiting.delete(stream);
      if (feed.joined.delete(stream)) count(feed, stream, -1);
      if (feed.joined.size === 0 && feed.waiting.size === 0) {
        feed.unsubscribe();
        if (ofDb.get(tenantId) === feed) ofDb.delete(tenantId);
      }
    },
  };
}
