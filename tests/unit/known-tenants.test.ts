import { describe, expect, it } from "vitest";
import type { DbHandle } from "@/lib/db";
import type { TenantRow } from "@/lib/db/queries/tenants";
import { forgetTenant, recallTenant, rememberTenant } from "@/widget/server/known-tenants";

// The chat's remembered tenant rows: bounded in age (the one use made of a row before the opening statement
// confirms it) and in number, and kept apart per database.

const handle = () => ({}) as DbHandle;
const row = (id: string) => ({ id }) as TenantRow;

describe("known tenants", () => {
  it("recalls a row for a minute, then reads it again", () => {
    const db = handle();
    rememberTenant(db, "wk_a", { tenant: row("a"), seen: "100" }, 0);
    expect(recallTenant(db, "wk_a", 59_000)?.seen).toBe("100");
    expect(recallTenant(db, "wk_a", 61_000)).toBeNull();
    // Once too old it is gone, not revived by an earlier clock.
    expect(recallTenant(db, "wk_a", 0)).toBeNull();
  });

  it("forgets on request, and keeps each database's rows apart", () => {
    const one = handle();
    const two = handle();
    rememberTenant(one, "wk_a", { tenant: row("a"), seen: "1" });
    expect(recallTenant(two, "wk_a")).toBeNull();
    forgetTenant(one, "wk_a");
    expect(recallTenant(one, "wk_a")).toBeNull();
  });

  it("holds at most 5,000 keys, dropping the least recently stored", () => {
    const db = handle();
    for (let i = 0; i <= 5000; i++) rememberTenant(db, `wk_${i}`, { tenant: row(String(i)), seen: "1" });
    expect(recallTenant(db, "wk_0")).toBeNull();
    expect(recallTenant(db, "wk_1")?.tenant.id).toBe("1");
    expect(recallTenant(db, "wk_5000")?.tenant.id).toBe("5000");
  });
});
