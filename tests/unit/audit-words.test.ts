import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ACTION_LABELS, targetLabel } from "@/lib/insights/audit-words";

// Every action the platform writes to the audit log has a label in words: the test reads the sources for
// audit actions (record("…") and action: "…"), so a new action without a label fails here.

const SRC = path.resolve(import.meta.dirname, "../../src/lib");

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = path.join(dir, f);
    return statSync(p).isDirectory() ? files(p) : p.endsWith(".ts") ? [p] : [];
  });
}

function writtenActions(): Set<string> {
  const found = new Set<string>();
  for (const f of files(SRC)) {
    const text = readFileSync(f, "utf8");
    for (const m of text.matchAll(/(?:record\(|action:\s)([^;]*)/g))
      for (const a of (m[1] ?? "").matchAll(/"([a-z_]+\.[a-z_]+)"/g)) found.add(a[1]!);
  }
  return found;
}

describe("the audit log in words", () => {
  it("has a label for every action the platform records", () => {
    const actions = writtenActions();
    expect(actions.size).toBeGreaterThan(20);
    expect([...actions].filter((a) => !(a in ACTION_LABELS))).toEqual([]);
  });

  it("names a target: a tool by its name, an id by its details, never a bare uuid", () => {
    expect(targetLabel("get_opening_status", {})).toBe("Opening hours");
    const id = "9b2c7e1a-3d4f-4a5b-8c6d-7e8f9a0b1c2d";
    expect(targetLabel(id, { url: "https://hooks.example.org/catch" })).toBe(
      "https://hooks.example.org/catch",
    );
    expect(targetLabel(id, {})).toBe("#9b2c7e1a");
    expect(targetLabel("michi-cafe", {})).toBe("michi-cafe");
  });
});
