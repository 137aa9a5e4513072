import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rowsOf } from "@/lib/db/client";
import { createTenant } from "@/lib/db/queries/tenants";
import { auditLog, conversations, messages, packConfigs } from "@/lib/db/schema";
import { freshDb, type TestDb } from "../support/db";

let t: TestDb;
let a: { id: string };
let b: { id: string };

beforeAll(async () => {
  t = await freshDb();
  a = await createTenant(t.handle.platform, { slug: "tenant-a", name: "A" });
  b = await createTenant(t.handle.platform, { slug: "tenant-b", name: "B" });
  for (const tenant of [a, b]) {
    await t.handle.platform
      .insert(packConfigs)
      .values({ tenantId: tenant.id, packId: "fetch_json", config: { n: 1 } });
    await t.handle.platform.insert(auditLog).values({ tenantId: tenant.id, action: "seed" });
    const [c] = await t.handle.platform
      .insert(conversations)
      .values({ tenantId: tenant.id, visitorId: "v" })
      .returning();
    await t.handle.platform
      .insert(messages)
      .values({ tenantId: tenant.id, conversationId: c!.id, role: "user", content: "hi" });
  }
});

afterAll(() => t?.close());

describe("row-level security", () => {
  it("is enabled and forced on every table that has a tenant_id column", async () => {
    const list = await rowsOf<{ relname: string; rls: boolean; forced: boolean }>(
      t.handle.platform,
      sql`
      select c.relname, c.relrowsecurity as rls, c.relforcerowsecurity as forced
      from pg_class c
      join pg_namespace n on n.oid = c.relnamespace
      join pg_attribute at on at.attrelid = c.oid and at.attname = 'tenant_id' and not at.attisdropped
      where n.nspname = 'public' and c.relkind in ('r', 'p')`,
    );
    expect(list.map((r) => r.relname)).toEqual(
      expect.arrayContaining([
        "memberships",
        "audit_log",
        "pack_configs",
        "conversations",
        "messages",
        "tool_runs",
      ]),
    );
    for (const r of list)
      expect({ table: r.relname, rls: r.rls, forced: r.forced }).toEqual({
        table: r.relname,
        rls: true,
        forced: true,
      });
  });

  it("scoped to tenant A, reads only A's rows", async () => {
    const seen = await t.handle.forTenant(a.id, (tx) => tx.select().from(packConfigs));
    expect(seen.map((r) => r.tenantId)).toEqual([a.id]);
    const msgs = await t.handle.forTenant(a.id, (tx) => tx.select().from(messages));
    expect(msgs.every((m) => m.tenantId === a.id)).toBe(true);
    expect(msgs).toHaveLength(1);
  });

  it("scoped to tenant A, updates and deletes of B's rows touch nothing", async () => {
    const updated = await t.handle.forTenant(a.id, (tx) =>
      tx.update(packConfigs).set({ enabled: true }).where(eq(packConfigs.tenantId, b.id)).returning(),
    );
    expect(updated).toHaveLength(0);
    const deleted = await t.handle.forTenant(a.id, (tx) =>
      tx.delete(auditLog).where(eq(auditLog.tenantId, b.id)).returning(),
    );
    expect(deleted).toHaveLength(0);
    const stillThere = await t.handle.platform.select().from(auditLog).where(eq(auditLog.tenantId, b.id));
    expect(stillThere).toHaveLength(1);
    const [bConfig] = await t.handle.platform
      .select()
      .from(packConfigs)
      .where(eq(packConfigs.tenantId, b.id));
    expect(bConfig?.enabled).toBe(false);
  });

  it("scoped to tenant A, inserting a row for B fails", async () => {
    await expect(
      t.handle.forTenant(a.id, (tx) => tx.insert(auditLog).values({ tenantId: b.id, action: "forged" })),
    ).rejects.toThrow();
    const forged = await t.handle.platform.select().from(auditLog).where(eq(auditLog.action, "forged"));
    expect(forged).toHaveLength(0);
  });

  it("scoped to tenant A, sees only its own tenant row", async () => {
    const rows = await t.handle.forTenant(a.id, (tx) =>
      rowsOf<{ slug: string }>(tx, sql`select slug from tenants`),
    );
    expect(rows.map((r) => r.slug)).toEqual(["tenant-a"]);
  });

  it("as the tenant role with no tenant set, sees no rows", async () => {
    const rows = await t.handle.platform.transaction(async (tx) => {
      await tx.execute(sql`set local role michi_tenant`);
      return rowsOf<{ n: number }>(tx, sql`select count(*)::int as n from messages`);
    });
    expect(rows[0]?.n).toBe(0);
  });

  it("a pooled connection reused after a tenant transaction sees nothing of that tenant", async () => {
    await t.handle.forTenant(a.id, (tx) => tx.select().from(messages));
    // The setting survives as '' on the same connection; the policy must treat that as "no tenant".
    const rows = await t.handle.platform.transaction(async (tx) => {
      const [setting] = await rowsOf<{ v: string | null }>(
        tx,
        sql`select current_setting('app.tenant_id', true) as v`,
      );
      await tx.execute(sql`set local role michi_tenant`);
      const [count] = await rowsOf<{ n: number }>(tx, sql`select count(*)::int as n from pack_configs`);
      return { setting: setting?.v, n: count?.n };
    });
    expect(rows.setting === "" || rows.setting === null).toBe(true);
    expect(rows.n).toBe(0);
  });

  it("a tenant transaction that throws stores nothing, and the connection serves the next one", async () => {
    const [conv] = await t.handle.forTenant(a.id, (tx) => tx.select().from(conversations));
    const failed = t.handle.forTenant(a.id, async (tx) => {
      await tx
        .insert(messages)
        .values({ tenantId: a.id, conversationId: conv!.id, role: "user", content: "rolled back" });
      throw new Error("use case failed");
    });
    await expect(failed).rejects.toThrow("use case failed");
    const rows = await t.handle.forTenant(a.id, (tx) =>
      tx.select().from(messages).where(eq(messages.content, "rolled back")),
    );
    expect(rows).toEqual([]);
  });

  it("a nested transaction that throws undoes only its own writes", async () => {
    const [conv] = await t.handle.forTenant(b.id, (tx) => tx.select().from(conversations));
    const row = (content: string) => ({
      tenantId: b.id,
      conversationId: conv!.id,
      role: "user" as const,
      content,
    });
    await t.handle.forTenant(b.id, async (tx) => {
      await tx.insert(messages).values(row("outer kept"));
      await tx
        .transaction(async (inner) => {
          await inner.insert(messages).values(row("inner undone"));
          throw new Error("inner failed");
        })
        .catch(() => {});
    });
    const rows = await t.handle.forTenant(b.id, (tx) => tx.select().from(messages));
    expect(rows.map((r) => r.content).sort()).toEqual(["hi", "outer kept"]);
  });

  it("refuses a tenant id that is not a uuid before touching the database", async () => {
    await expect(t.handle.forTenant("' or 1=1 --", async () => 1)).rejects.toThrow(/uuid/);
  });
});
