import "server-only";
import type pg from "pg";
import type { DbHandle } from "./client";
import { LIVE_CHANNEL } from "./queries/live-events";

// The one LISTEN connection of a process (per database handle) for the live log's wake-ups. It is a client
// of its own, outside the pool: a pooled connection would stop listening the moment it is released.

export type LiveListener = {
  /** True while LISTEN is in place: Postgres then delivers every commit's wake-up here, this process's too. */
  connected(): boolean;
  close(): Promise<void>;
};

const RETRY_MIN_MS = 250;
const RETRY_MAX_MS = 10_000;

/**
 * Listens on the live channel of `db`'s Postgres database: `onWake` gets each payload; `onConnect` runs on
 * every (re)connection, since wake-ups sent while the connection was down are gone and streams must re-read.
 * On the embedded database it does nothing (one process; the in-process emitter carries the wake-ups).
 */
export function listenLive(
  db: DbHandle,
  onWake: (payload: string) => void,
  onConnect: () => void,
): LiveListener {
  if (db.kind !== "pg") return { connected: () => false, close: async () => {} };
  const options = db.raw.pool.options;
  let client: pg.Client | null = null;
  let listening = false;
  let closed = false;
  let retry = RETRY_MIN_MS;
  let timer: NodeJS.Timeout | undefined;

  const schedule = () => {
    if (closed || timer) return;
    timer = setTimeout(() => {
      timer = undefined;
      void connect();
    }, retry);
    timer.unref();
    retry = Math.min(retry * 2, RETRY_MAX_MS);
  };

  const connect = async () => {
    // Loaded when first needed, as in client.ts: a static import of pg makes a compiled route module async,
    // which the production server's direct routes cannot load (scripts/direct-routes.mjs).
    let Client: typeof pg.Client;
    try {
      Client = (await import("pg")).default.Client;
    } catch {
      return schedule();
    }
    if (closed) return;
    const c = new Client({ ...options, keepAlive: true });
    client = c;
    let lost = false;
    const lose = () => {
      if (lost) return;
      lost = true;
      if (client === c) {
        client = null;
        listening = false;
      }
      c.end().catch(() => {});
      schedule();
    };
    c.on("error", lose);
    c.on("end", lose);
    c.on("notification", (n) => {
      if (n.channel === LIVE_CHANNEL && n.payload) onWake(n.payload);
    });
    try {
      await c.connect();
      await c.query(`listen ${LIVE_CHANNEL}`);
      if (closed) return void c.end().catch(() => {});
      retry = RETRY_MIN_MS;
      listening = client === c;
      onConnect();
    } catch {
      lose();
    }
  };

  void connect();
  return {
    connected: () => listening,
    async close() {
      closed = true;
      listening = false;
      clearTimeout(timer);
      const c = client;
      client = null;
      if (c) await c.end().catch(() => {});
    },
  };
}
