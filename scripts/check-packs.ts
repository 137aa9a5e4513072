// npm run check:packs — the conformance kit for every registered tool pack. Run it on your fork before you
// build your image; it exits non-zero when any pack breaks the rules. See docs/tool-packs.md.
import path from "node:path";
import { readSources, runConformance } from "../src/lib/tools/conformance";
import { ALL_PACKS } from "../src/lib/tools/index";

const root = path.resolve(import.meta.dirname, "..");
const num = (v: string | undefined, fallback: number) =>
  v && Number.isFinite(Number(v)) ? Number(v) : fallback;

const reports = await runConformance(ALL_PACKS, {
  sources: readSources(path.join(root, "src/lib/tools")),
  timeoutMs: num(process.env.MICHI_TOOL_TIMEOUT_MS, 8000),
  maxChars: num(process.env.MICHI_TOOL_RESULT_MAX_CHARS, 4000),
});

const width = Math.max(...reports.map((r) => r.id.length));
console.log(`check:packs: ${reports.length} registered pack${reports.length === 1 ? "" : "s"}\n`);
for (const r of reports) {
  const [first, ...rest] = r.lines;
  console.log(`${r.ok ? "PASS" : "FAIL"}  ${r.id.padEnd(width)}  ${first ?? ""}`);
  for (const line of rest) console.log(`      ${" ".repeat(width)}  ${line}`);
}
const failed = reports.filter((r) => !r.ok).length;
console.log(`\n${reports.length - failed} passed, ${failed} failed`);
process.exit(failed > 0 ? 1 : 0);
