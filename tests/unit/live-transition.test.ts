import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { BOT_STATES, LIVE_MOVES, PERSON_STATES } from "@/lib/live/transition";

// The live states are read in two places: the transition table (src/lib/live/transition.ts), which every
// change of state goes through, and the turn's SQL functions, which decide from the state whether the model
// answers (michi_open_turn) and whether its answer is kept (michi_finish_turn). Those functions are read in
// src/lib/db/sql/turn-functions.sql (tests/integration/turn-functions-source.test.ts holds the migrated
// database equal to it). A state added or moved on one side only fails here.

const root = path.resolve(import.meta.dirname, "../..");
const turnSql = readFileSync(path.join(root, "src/lib/db/sql/turn-functions.sql"), "utf8");
const migrations = readdirSync(path.join(root, "drizzle"))
  .filter((f) => f.endsWith(".sql"))
  .sort()
  .map((f) => readFileSync(path.join(root, "drizzle", f), "utf8"));

const FUNCTION = /CREATE (?:OR REPLACE )?FUNCTION (\w+)\([\s\S]*?AS \$\$([\s\S]*?)\$\$;/g;
const list = (s: string) => [...s.matchAll(/'(\w+)'/g)].map((m) => m[1] as string).sort();

/** Each function's state checks: the lists in `… state IN ('a', 'b')`. */
function stateChecks(sql: string): Map<string, string[][]> {
  const checks = new Map<string, string[][]>();
  for (const [, name, body] of sql.matchAll(FUNCTION)) {
    const lists = [...(body as string).matchAll(/\w*state IN \(([^)]*)\)/gi)].map((m) =>
      list(m[1] as string),
    );
    if (lists.length > 0) checks.set(name as string, lists);
  }
  return checks;
}

const sorted = (xs: readonly string[]) => [...xs].sort();

describe("the live transition table and the SQL functions agree", () => {
  it("the turn opens on a person's side and keeps a bot answer in exactly the table's states", () => {
    const checks = stateChecks(turnSql);
    expect(checks.get("michi_open_turn")).toEqual([sorted(PERSON_STATES)]);
    expect(checks.get("michi_finish_turn")).toEqual([sorted(BOT_STATES)]);
    // No other function reads the state without this test knowing what it means.
    expect([...checks.keys()].sort()).toEqual(["michi_finish_turn", "michi_open_turn"]);
  });

  it("every function a migration writes that reads the live state is one of the source file's", () => {
    const source = new Set([...turnSql.matchAll(FUNCTION)].map((m) => m[1]));
    const reading = migrations.flatMap((sql) =>
      [...sql.matchAll(FUNCTION)].filter((m) => /live_state/.test(m[2] as string)).map((m) => m[1]),
    );
    expect(reading.length).toBeGreaterThan(0);
    for (const name of reading) expect(source).toContain(name);
  });

  it("the column allows exactly the states the table moves between, split into the bot's and a person's", () => {
    const check = migrations.join("\n").match(/CHECK \("live_state" IN \(([^)]*)\)\)/);
    const column = list(check?.[1] ?? "");
    const moved = new Set(Object.values(LIVE_MOVES).flatMap((m) => [...m.from, m.to]));
    expect(sorted([...moved])).toEqual(column);
    expect(sorted([...BOT_STATES, ...PERSON_STATES])).toEqual(column);
  });

  it("a person's part can always end, and a person can always take over", () => {
    expect(sorted(LIVE_MOVES.handBack.from)).toEqual(sorted(PERSON_STATES));
    expect(sorted(LIVE_MOVES.close.from)).toEqual(sorted(PERSON_STATES));
    expect(sorted(LIVE_MOVES.claim.from)).toEqual(sorted([...BOT_STATES, ...PERSON_STATES]));
    expect(sorted(LIVE_MOVES.request.from)).toEqual(sorted(BOT_STATES));
  });
});
