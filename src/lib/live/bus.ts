import "server-only";
import { EventEmitter } from "node:events";
import type { DbHandle } from "../db";
import { type LiveListener, listenLive } from "../db/live-listen";
import { env } from "../env";
import { log } from "../log";
import { processSlot } from "../process-slot";

// The live fan-out: it only wakes streams ("conversation C of tenant T has new rows in the log"), it never
// carries content, so a lost wake-up only delays (streams also re-read on a slow timer, src/lib/live/stream.ts).
//
// How a writer uses it: `appendLiveEvent(tx, …)` inside its tenant transaction, then `wakeLive(tenantId,
// conversationId)` after the commit. Where the wake-ups travel:
// - Postgres: the append's own pg_notify, delivered at commit to every instance's LISTEN connection
//   (src/lib/db/live-listen.ts), this instance's too; wakeLive itself wakes only while LISTEN is down.
// - REDIS_URL set: wakeLive publishes on Redis pub/sub and every instance's subscriber (this one's too) wakes
//   its streams; the Postgres LISTEN connection is then not opened.
// - The embedded database (one process): the in-process emitter alone.

const REDIS_CHANNEL = "michi:live";

/** A wake-up for one conversation, or null: "re-read everything" (a transport reconnected, wake-ups lost). */
export type LiveWake = (conversationId: string | null) => void;

type Bus = {
  emitter: EventEmitter;
  transports: Map<DbHandle, LiveListener>;
  redis?: Promise<RedisPair>;
};
type RedisPair = { publish(payload: string): Promise<unknown>; close(): Promise<void> };

const slot = processSlot<Bus>("LiveBus");
const bus = () => {
  const b = slot.use(() => ({ emitter: new EventEmitter(), transports: new Map() }));
  b.emitter.setMaxListeners(0);
  return b;
};

function deliver(payload: string) {
  const at = payload.indexOf(":");
  if (at < 0) return;
  bus().emitter.emit(payload.slice(0, at), payload.slice(at + 1));
}

function everyone() {
  const { emitter } = bus();
  for (const name of emitter.eventNames()) if (typeof name === "string") emitter.emit(name, null);
}

function redisPair(url: string): Promise<RedisPair> {
  const b = bus();
  b.redis ??= import("ioredis").then(async ({ Redis }) => {
    const pub = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
    const sub = new Redis(url, { lazyConnect: true });
    pub.on("error", () => {});
    sub.on("error", () => {});
    sub.on("message", (_channel: string, payload: string) => deliver(payload));
    // A resubscription after a dropped connection may have missed wake-ups.
    sub.on("ready", everyone);
    await Promise.all([pub.connect(), sub.connect()]);
    await sub.subscribe(REDIS_CHANNEL);
    return {
      publish: (payload) => pub.publish(REDIS_CHANNEL, payload),
      // QUIT after the replies still due: a wake-up published just before closing still goes out.
      async close() {
        await Promise.all([pub.quit(), sub.quit()]).catch(() => {});
      },
    };
  });
  b.redis.catch(() => {
    if (bus().redis) bus().redis = undefined;
  });
  return b.redis;
}

/** After the commit of a transaction that appended to the live log: wakes the conversation's streams. */
export function wakeLive(tenantId: string, conversationId: string): void {
  const payload = `${tenantId}:${conversationId}`;
  const url = env().REDIS_URL;
  if (url) {
    // Redis hands the wake-up back to this process's subscriber too; only when it is away, wake here.
    redisPair(url)
      .then((r) => r.publish(payload))
      .catch((err) => {
        deliver(payload);
        log().warn({ err }, "live wake-up not published; other instances re-read on their timer");
      });
    return;
  }
  // With LISTEN in place, Postgres delivers the append's own notification here as well: waking now too would
  // make every stream read twice per event.
  if (![...bus().transports.values()].some((l) => l.connected())) deliver(payload);
}

/**
 * Calls `listener` on every wake-up of the tenant's conversations (from this process or, through the
 * transport of `db`, from any instance) until the returned function is called.
 */
export function onLiveWake(db: DbHandle, tenantId: string, listener: LiveWake): () => void {
  const b = bus();
  const url = env().REDIS_URL;
  if (url) {
    redisPair(url).catch((err) => log().warn({ err }, "live wake-ups from other instances unavailable"));
  } else if (!b.transports.has(db)) {
    b.transports.set(db, listenLive(db, deliver, everyone));
  }
  b.emitter.on(tenantId, listener);
  return () => {
    b.emitter.off(tenantId, listener);
  };
}

/** Whether the LISTEN connection for `db` is up (false on PGlite and with Redis): tests that count reads
 * wait for it, since its connecting wakes every stream once (wake-ups may have been missed until then). */
export function liveListenConnected(db: DbHandle): boolean {
  return bus().transports.get(db)?.connected() ?? false;
}

/** Closes this process's wake-up transports (the LISTEN connections, the Redis clients): tests, shutdown. */
export async function closeLiveWakes(): Promise<void> {
  const b = bus();
  const redis = b.redis;
  b.redis = undefined;
  const listeners = [...b.transports.values()];
  b.transports.clear();
  await Promise.all([
    ...listeners.map((l) => l.close()),
    redis?.then(
      (r) => r.close(),
      () => {},
    ),
  ]);
}
