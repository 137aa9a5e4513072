import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rowsOf } from "@/lib/db/client";
import { freshDb, type TestDb } from "../support/db";

// DbHandle.urgent: the pool of the statements a provider is timing (the channels' webhook acknowledgements,
// src/lib/channels/receive.ts). It must not wait for a connection behind the main pool's transactions, and on
// the embedded database, whose one backend serves every connection in turn, its statements run first when
// the backend comes free (src/lib/db/pglite-worker.mjs).

let t: TestDb;
beforeAll(async () => {
  t = await freshDb();
});
afterAll(async () => {
  await t?.close();
});

const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("the urgent pool", () => {
  it("answers while every connection of the main pool is taken", async () => {
    const pool = t.handle.raw.pool;
    const taken = await Promise.all(Array.from({ length: pool.options.max ?? 10 }, () => pool.connect()));
    try {
      // A statement on the main pool now waits for a connection; the urgent pool has its own.
      expect(pool.waitingCount).toBe(0);
      const [row] = await rowsOf<{ n: number; name: string }>(
        t.handle.urgent.platform,
        sql`select 1 as n, current_setting('application_name') as name`,
      );
      expect(row?.n).toBe(1);
      // Postgres names the connection (PGlite's one backend keeps no startup parameters).
      if (t.url) expect(row?.name).toBe("michi-urgent");
    } finally {
      for (const c of taken) c.release();
    }
  });

  it.skipIf(!!process.env.DATABASE_URL)(
    "on the embedded database, runs before the statements already waiting for the backend",
    async () => {
      const db = t.handle;
      await db.raw.pool.query("create sequence urgent_order");
      // The urgent connection is open before the backend is taken (a new one would wait to start up).
      await rowsOf(db.urgent.platform, sql`select 1`);
      const holder = await db.raw.pool.connect();
      try {
        await holder.query("begin");
        await holder.query("select 1");
        // Queued first, behind the transaction…
        const plain = db.raw.pool.query<{ n: string }>("select nextval('urgent_order') as n");
        await wait(100); // lets it reach the bridge first (if it did not, the urgent one is first anyway)
        // …then an urgent one.
        const urgent = rowsOf<{ n: string }>(db.urgent.platform, sql`select nextval('urgent_order') as n`);
        await wait(100);
        await holder.query("commit");
        const [p, u] = await Promise.all([plain, urgent]);
        expect(Number(u[0]?.n)).toBeLessThan(Number(p.rows[0]?.n));
      } finally {
        holder.release();
      }
    },
  );
});
