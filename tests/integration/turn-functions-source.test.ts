import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrationsFolder } from "@/lib/db/migrate";
import { freshDb, type TestDb } from "../support/db";

// The turn's SQL functions are read in one file, src/lib/db/sql/turn-functions.sql, and written to the
// database only by migrations. This holds the two together: a database migrated from drizzle/ holds exactly
// the functions of the source file (name, arguments, body, who may call them), and the latest migration that
// defines each one carries the same text. A migration that forgets part of a change, or a source edited
// without a migration, fails here.

const root = path.resolve(import.meta.dirname, "../..");
const SOURCE = "src/lib/db/sql/turn-functions.sql";

type Fn = { name: string; args: string; body: string };

const squash = (s: string) => s.replace(/\s+/g, " ").trim();

/** Every `CREATE [OR REPLACE] FUNCTION name(args) … AS $$body$$` of a SQL text, in order. */
function functionsIn(sql: string): Fn[] {
  const re = /CREATE (?:OR REPLACE )?FUNCTION (\w+)\(([\s\S]*?)\) RETURNS [\s\S]*? AS \$\$([\s\S]*?)\$\$;/g;
  return [...sql.matchAll(re)].map(([, name, args, body]) => ({
    name: name as string,
    args: squash(args as string),
    body: body as string,
  }));
}

const source = functionsIn(readFileSync(path.join(root, SOURCE), "utf8"));

/** The migrations in the order the migrator applies them (drizzle/meta/_journal.json). */
function migrations(): { tag: string; sql: string }[] {
  const folder = migrationsFolder();
  const journal = JSON.parse(readFileSync(path.join(folder, "meta/_journal.json"), "utf8")) as {
    entries: { tag: string }[];
  };
  return journal.entries.map((e) => ({
    tag: e.tag,
    sql: readFileSync(path.join(folder, `${e.tag}.sql`), "utf8"),
  }));
}

let t: TestDb;
beforeAll(async () => {
  t = await freshDb();
});
afterAll(async () => {
  await t?.close();
});

describe("the turn's SQL source", () => {
  it("names the turn's functions", () => {
    expect(source.map((f) => f.name)).toEqual([
      "michi_enter_tenant",
      "michi_take_rate_points",
      "michi_open_turn",
      "michi_open_turn_as_seen",
      "michi_finish_turn",
    ]);
  });

  it("is what a migrated database runs: one function per name, these arguments and this body, not for PUBLIC", async () => {
    const { rows } = await t.handle.raw.pool.query<{
      name: string;
      args: string;
      body: string;
      acl: string | null;
    }>(
      `select p.proname as name, pg_get_function_identity_arguments(p.oid) as args, p.prosrc as body,
              p.proacl::text as acl
         from pg_proc p where p.proname = any($1) order by p.proname`,
      [source.map((f) => f.name)],
    );
    // Postgres names timestamptz in full.
    const args = (a: string) => squash(a).replaceAll("timestamp with time zone", "timestamptz");
    const live = rows.map((r) => ({ name: r.name, args: args(r.args), body: r.body }));
    expect(live).toEqual([...source].sort((a, b) => a.name.localeCompare(b.name)));
    // Only the platform role calls the turn's functions; michi_enter_tenant is only ever called from them.
    for (const r of rows) {
      if (r.name === "michi_enter_tenant") continue;
      expect(r.acl, r.name).not.toBeNull();
      expect(r.acl?.replace(/^\{|\}$/g, "").split(","), r.name).not.toContainEqual(
        expect.stringMatching(/^=/),
      );
    }
  });

  it("matches the latest migration that defines each function, text for text", () => {
    const all = migrations();
    for (const fn of source) {
      const latest = all
        .flatMap((m) => functionsIn(m.sql).map((f) => ({ ...f, tag: m.tag })))
        .filter((f) => f.name === fn.name);
      const last = latest.at(-1);
      expect(last, `no migration defines ${fn.name}`).toBeDefined();
      expect({ args: last?.args, body: last?.body }, `${fn.name} in drizzle/${last?.tag}.sql`).toEqual({
        args: fn.args,
        body: fn.body,
      });
    }
  });
});
