import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { CHANNEL_NAMES, channelBranches } from "../../scripts/channel-branch-check.mjs";
import { folderGraphFaults } from "../../scripts/folder-graph.mjs";
import { missingServerOnly } from "../../scripts/server-only-check.mjs";
import { CHANNEL_WORDS } from "../../src/shared/channels";

// `npm run lint` checks the layer boundaries with the real tools; here each rule is shown to fail on
// tests/fixtures/lint, a tiny project whose every file breaks exactly one rule (see its README).

const root = path.resolve(import.meta.dirname, "../..");
const fixture = path.join(root, "tests/fixtures/lint");
const run = promisify(execFile);

async function tool(args: string[]): Promise<string> {
  // Both tools exit non-zero when they find something; the report is what matters here.
  const out = await run(process.execPath, args, { cwd: fixture, timeout: 60_000 }).catch(
    (e: { stdout?: string; code?: number }) => {
      if (typeof e.stdout !== "string" || e.code === undefined) throw e;
      return { stdout: e.stdout, exitCode: e.code };
    },
  );
  expect("exitCode" in out ? out.exitCode : 0).not.toBe(0);
  return out.stdout;
}

describe("lint boundaries fail on broken code", () => {
  it("dependency-cruiser refuses an upward import, SQL outside src/lib/db, a component reading the db, a cycle, a use case importing form state, the widget's words or scripts/", async () => {
    // The same reporter and exit code `npm run lint` relies on.
    const report = await tool([
      path.join(root, "node_modules/dependency-cruiser/bin/dependency-cruise.mjs"),
      "--config",
      path.join(root, ".dependency-cruiser.cjs"),
      "--output-type",
      "err",
      "src",
    ]);
    // A cycle is reported over several lines, one module per line: "a.ts → ⏎ b.ts → ⏎ a.ts".
    const violations = [...report.matchAll(/error ([\w-]+): (\S+) → \s*((?:\S+ →\s+)*\S+)/g)].map(
      ([, rule, from, to]) =>
        `${rule}: ${from} → ${to?.replace(/\s+/g, " ").replace(/^.*node_modules\//, "")}`,
    );
    expect(violations.sort()).toEqual([
      "component-reads-db: src/components/WidgetTable.tsx → src/lib/db/queries/widgets.ts",
      "lib-imports-widget-client: src/lib/leads/submit.ts → src/widget/words.ts",
      "no-circular: src/lib/chat/client.ts → src/lib/chat/reply.ts → src/lib/chat/client.ts",
      "sql-outside-db: src/lib/chat/loop.ts → drizzle-orm/index.js",
      "src-imports-scripts: src/lib/log.ts → scripts/redact.mjs",
      "upward-from-db: src/lib/db/queries/widgets.ts → src/lib/auth/session.ts",
      "use-case-imports-form-state: src/lib/bot/settings.ts → src/lib/auth/action.ts",
    ]);
  }, 60_000);

  it("knip reports the unused export", async () => {
    const json = await tool([path.join(root, "node_modules/knip/bin/knip.js"), "--reporter", "json"]);
    const report = JSON.parse(json) as { issues: { file: string; exports: { name: string }[] }[] };
    const unused = report.issues.flatMap((i) => i.exports.map((e) => `${i.file}: ${e.name}`));
    expect(unused).toEqual(["src/lib/db/queries/widgets.ts: unusedWidgetHelper"]);
  }, 60_000);

  it("the server-only check names the server module without the marker", () => {
    expect(missingServerOnly(fixture)).toEqual(["src/lib/auth/session.ts"]);
  });

  it("the channel-branch check names a component asking which channel it is, not the adapter's own folder", () => {
    expect(channelBranches(fixture)).toEqual([
      'src/components/ChannelNote.tsx:3: return channel === "whatsapp" ? "Replies within 24 hours." : "";',
    ]);
    // The names it looks for are the channels' table's rows, so a new channel is checked from its first day.
    expect([...CHANNEL_NAMES].sort()).toEqual(Object.keys(CHANNEL_WORDS).sort());
  });

  it("the folder graph names every arrow up, the two-way pair and the longer cycle between folders", () => {
    expect(folderGraphFaults(fixture)).toEqual([
      "up: lib/db (db) → lib/auth (auth/security): src/lib/db/queries/widgets.ts → src/lib/auth/session.ts",
      "up: lib/leads (use cases) → widget (app): src/lib/leads/submit.ts → src/widget/words.ts",
      "up: lib/log (base) → scripts (scripts/): src/lib/log.ts → scripts/redact.mjs",
      "pair: lib/orders ⇄ lib/shipping: src/lib/orders/place.ts → src/lib/shipping/quote.ts; src/lib/shipping/label.ts → src/lib/orders/address.ts",
      "cycle: lib/billing, lib/orders, lib/shipping",
    ]);
  });
});
