import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";
import { unaccent } from "@electric-sql/pglite/contrib/unaccent";
import { eq, sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/pglite";
import { migrate as pgliteMigrate } from "drizzle-orm/pglite/migrator";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb, type Db, type DbHandle, rowsOf } from "@/lib/db/client";
import { migrate, migrationsApplied, migrationsFolder } from "@/lib/db/migrate";
import { createTenant, findTenantBySlug } from "@/lib/db/queries/tenants";
import { tenants } from "@/lib/db/schema";

// The embedded database runs in a worker thread behind a Unix socket (src/lib/db/pglite-worker.mjs) and the
// app reaches it through `pg`. These tests hold what a user of a single-instance install would notice: the
// server keeps answering while the database works, tenants stay apart when transactions run side by side, a
// data directory from the earlier in-process version opens as it was, and closing keeps the data.

describe("the embedded database in its worker", () => {
  let handle: DbHandle;
  let a: string;
  let b: string;
  beforeAll(async () => {
    handle = await createDb({ dataDir: null });
    await migrate(handle);
    a = (await createTenant(handle.platform, { slug: "embedded-a", name: "A" })).id;
    b = (await createTenant(handle.platform, { slug: "embedded-b", name: "B" })).id;
  });
  afterAll(() => handle.close());

  it("a long query does not hold up the event loop: a timer set after it fires before it returns", async () => {
    const order: string[] = [];
    const query = handle.platform
      .execute(sql`select count(*) from generate_series(1, 2000000)`)
      .then(() => order.push("query"));
    setTimeout(() => order.push("timer"), 0);
    await query;
    expect(order[0]).toBe("timer");
  });

  it("transactions of different tenants on several pooled connections never see each other's tenant", async () => {
    const seen = await Promise.all(
      Array.from({ length: 12 }, (_, i) => {
        const tenant = i % 2 ? a : b;
        return handle.forTenant(tenant, async (tx) => {
          await new Promise((r) => setImmediate(r)); // let the other transactions start meanwhile
          const [row] = await rowsOf<{ t: string; role: string }>(
            tx,
            sql`select current_setting('app.tenant_id') as t, current_user as role`,
          );
          const visible = await tx.select({ id: tenants.id }).from(tenants);
          return { tenant, row, visible: visible.map((v) => v.id) };
        });
      }),
    );
    for (const s of seen) {
      expect(s.row).toEqual({ t: s.tenant, role: "michi_tenant" });
      expect(s.visible).toEqual([s.tenant]);
    }
  });

  it("a connection lost inside a transaction is rolled back and does not block the others", async () => {
    const client = await handle.raw.pool.connect();
    await client.query("begin");
    await client.query("update tenants set name = 'half-done' where id = $1", [a]);
    client.release(new Error("gone")); // destroys the connection mid-transaction
    const [row] = await handle.platform.select().from(tenants).where(eq(tenants.id, a));
    expect(row?.name).toBe("A");
  });

  // The worker prepares each SQL text once and reuses it (src/lib/db/pglite-statements.mjs).
  it("a repeated query answers for its own parameters, also across connections and after a failed one", async () => {
    const pool = handle.raw.pool;
    const q = "select slug from tenants where id = $1";
    const ids = [a, b, a, b];
    const slugs = await Promise.all(ids.map((id) => pool.query(q, [id]).then((r) => r.rows[0]?.slug)));
    expect(slugs).toEqual(["embedded-a", "embedded-b", "embedded-a", "embedded-b"]);
    await expect(pool.query(q, ["not-a-uuid"])).rejects.toThrow(/uuid/);
    await expect(pool.query("selec slug from tenants where id = $1", [a])).rejects.toThrow(/syntax/);
    expect((await pool.query(q, [b])).rows).toEqual([{ slug: "embedded-b" }]);
  });

  it("after a table changes, the same query returns its new columns", async () => {
    const pool = handle.raw.pool;
    await pool.query("create table shape_probe (id int primary key, a text)");
    await pool.query("insert into shape_probe values (1, 'x')");
    const q = "select * from shape_probe where id = $1";
    for (let i = 0; i < 3; i++) expect((await pool.query(q, [1])).rows).toEqual([{ id: 1, a: "x" }]);
    await pool.query("alter table shape_probe add column b int default 7");
    expect((await pool.query(q, [1])).rows).toEqual([{ id: 1, a: "x", b: 7 }]);
    await pool.query("drop table shape_probe");
  });

  it("a failed statement leaves the connection usable", async () => {
    await expect(handle.platform.execute(sql`select * from no_such_table`)).rejects.toThrow();
    const failed = await handle.forTenant(a, (tx) => tx.execute(sql`select 1 / 0`)).catch((e) => e);
    expect(String((failed as Error).cause)).toMatch(/division by zero/);
    expect(await migrationsApplied(handle)).toBe(true);
  });
});

describe("a data directory from the in-process version", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "michi-embedded-"));
  const dataDir = path.join(dir, "pglite");
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("opens unchanged through the worker, and keeps what was written after a close", async () => {
    // Made the way the earlier version did it: PGlite on the main thread, drizzle's PGlite migrator.
    // Today's migrations create extensions (pg_trgm, unaccent), which PGlite can run only with their modules loaded.
    const old = new PGlite({ dataDir, extensions: { pg_trgm, unaccent } });
    await pgliteMigrate(drizzle(old), { migrationsFolder: migrationsFolder() });
    await old.query("select michi_secure_tenant_tables()");
    await createTenant(drizzle(old) as unknown as Db, { slug: "from-before", name: "Before" });
    await old.close();

    const first = await createDb({ dataDir });
    const socketDir = String(first.raw.pool.options.host);
    try {
      expect(await migrate(first)).toBe(0);
      const before = await findTenantBySlug(first.platform, "from-before");
      expect(before?.name).toBe("Before");
      // The RLS role and policies made by the old version still hold.
      const visible = await first.forTenant(before!.id, (tx) => tx.select().from(tenants));
      expect(visible.map((t) => t.slug)).toEqual(["from-before"]);
      await createTenant(first.platform, { slug: "written-after", name: "After" });
    } finally {
      await first.close();
    }
    expect(existsSync(socketDir)).toBe(false); // the worker and its socket are gone

    const again = await createDb({ dataDir });
    try {
      expect((await findTenantBySlug(again.platform, "written-after"))?.name).toBe("After");
    } finally {
      await again.close();
    }
  });
});
