import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { createDb, rowsOf } from "@/lib/db/client";
import { expectedMigrationCount, migrate, migrationsApplied } from "@/lib/db/migrate";
import { createEmptyDatabase } from "../support/db";

describe.skipIf(!process.env.DATABASE_URL)("migrations on real Postgres", () => {
  it("two instances starting at once on an empty database both come up, and migrations run once", async () => {
    const empty = await createEmptyDatabase("michi_mig");
    const one = await createDb({ url: empty.url, poolMax: 2 });
    const two = await createDb({ url: empty.url, poolMax: 2 });
    try {
      const [x, y] = await Promise.all([migrate(one), migrate(two)]);
      const total = expectedMigrationCount();
      // Exactly one instance applied everything; the other found nothing left.
      expect([x, y].sort()).toEqual([0, total]);
      const rows = await rowsOf<{ n: number }>(
        one.platform,
        sql`select count(*)::int as n from drizzle.__drizzle_migrations`,
      );
      expect(rows[0]?.n).toBe(total);
      expect(await migrationsApplied(two)).toBe(true);
    } finally {
      await one.close();
      await two.close();
      await empty.drop();
    }
  });
});

describe("migrations", () => {
  it("a second run on a migrated database applies nothing", async () => {
    const handle = await createDb({ dataDir: null });
    try {
      expect(await migrate(handle)).toBe(expectedMigrationCount());
      expect(await migrate(handle)).toBe(0);
      expect(await migrationsApplied(handle)).toBe(true);
    } finally {
      await handle.close();
    }
  });
});
