import { execFile } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// A pack author follows docs/tool-packs.md "Writing and registering a pack" to the letter: the example file
// under the name the doc gives, the doc's import line and entry in src/lib/tools/index.ts. In a copy of the
// repository (the real one stays untouched), `npm run lint`, the type check and `npm run check:packs` must
// pass as written. The example used to fail lint (no `import "server-only"`, a snake_case file name, a line
// the formatter breaks).

const run = promisify(execFile);
const repo = path.resolve(import.meta.dirname, "../..");
const SKIP = new Set([
  "node_modules",
  ".next",
  ".data",
  ".git",
  "test-results",
  "coverage",
  "playwright-report",
]);

/** The doc's example: the file name it gives, the pack file, and the registration's import and entry. */
function docExample() {
  const doc = readFileSync(path.join(repo, "docs/tool-packs.md"), "utf8");
  const section = doc.slice(doc.indexOf("## Writing and registering a pack"));
  const fileName = /for example `([^`]+\.ts)`/.exec(section)?.[1];
  // The blocks sit inside a numbered list, indented by three spaces.
  const blocks = [...section.matchAll(/^ {3}```ts\n([\s\S]*?)^ {3}```/gm)].map((m) =>
    m[1]!.replace(/^ {3}/gm, ""),
  );
  const importLine = blocks[1]?.split("\n").find((l) => l.startsWith("import "));
  const entry = /\[[^\]]*?(\w+)\];/.exec(blocks[1] ?? "")?.[1];
  if (!fileName || !blocks[0] || !importLine || !entry) throw new Error("the doc's example was not found");
  return { fileName, packFile: blocks[0], importLine, entry };
}

/** index.ts with the doc's import among the pack imports, in the path order the doc says they keep. */
function register(index: string, importLine: string, entry: string): string {
  const lines = index.split("\n");
  const isPackImport = (l: string) => /^import .* from "\.\/packs\//.test(l);
  const from = (l: string) => /from "([^"]+)"/.exec(l)![1]!;
  const at = lines.findIndex((l) => isPackImport(l) && from(l) > from(importLine));
  const last = lines.findLastIndex(isPackImport);
  lines.splice(at >= 0 ? at : last + 1, 0, importLine);
  return lines.join("\n").replace(/\n\];/, `\n  ${entry},\n];`);
}

let sandbox = "";
const inSandbox = (args: string[]) =>
  run(process.execPath, args, { cwd: sandbox, timeout: 240_000, maxBuffer: 16 * 1024 * 1024 });

beforeAll(async () => {
  const ex = docExample();
  sandbox = mkdtempSync(path.join(tmpdir(), "michi-pack-doc-"));
  cpSync(repo, sandbox, {
    recursive: true,
    filter: (src) => path.dirname(src) !== repo || !SKIP.has(path.basename(src)),
  });
  symlinkSync(path.join(repo, "node_modules"), path.join(sandbox, "node_modules"));
  // Biome reads .gitignore through git, as in a clone.
  await run("git", ["init", "-q", "."], { cwd: sandbox });
  writeFileSync(path.join(sandbox, "src/lib/tools/packs", ex.fileName), ex.packFile);
  const index = path.join(sandbox, "src/lib/tools/index.ts");
  writeFileSync(index, register(readFileSync(index, "utf8"), ex.importLine, ex.entry));
}, 120_000);

afterAll(() => {
  if (sandbox) rmSync(sandbox, { recursive: true, force: true });
});

describe("the pack example of docs/tool-packs.md, added as the doc says", () => {
  it("passes npm run lint", async () => {
    const out = await inSandbox(["scripts/lint.mjs"]).catch((e: { stdout: string; stderr: string }) => {
      throw new Error(`npm run lint failed on the doc's example:\n${e.stderr}\n${e.stdout}`.slice(0, 12_000));
    });
    // The closing line names every check lint ran; only its verdict matters here.
    expect(out.stdout).toMatch(/^lint: .* all clean$/m);
  }, 240_000);

  it("type-checks", async () => {
    await inSandbox([path.join(sandbox, "node_modules/typescript/bin/tsc"), "--noEmit"]).catch(
      (e: { stdout: string }) => {
        throw new Error(`tsc failed on the doc's example:\n${e.stdout}`.slice(-6000));
      },
    );
  }, 240_000);

  it("passes npm run check:packs with a PASS line of its own", async () => {
    const { stdout } = await inSandbox([
      path.join(sandbox, "node_modules/tsx/dist/cli.mjs"),
      "--conditions=react-server",
      "scripts/check-packs.ts",
    ]);
    expect(stdout).toMatch(/^PASS\s+get_parking\s+example → \d+ chars/m);
    expect(stdout).not.toMatch(/^FAIL/m);
  }, 240_000);

  it("check:packs shows the message of what the pack threw when the author's run has a bug", async () => {
    const file = path.join(sandbox, "src/lib/tools/packs", docExample().fileName);
    const text = readFileSync(file, "utf8");
    const broken = text.replace(
      /async run\(config, _args, ctx\) \{/,
      '$&\n    if (config.baseUrl) throw new RangeError("the car park map is empty");',
    );
    expect(broken).not.toBe(text);
    writeFileSync(file, broken);
    const failed = await inSandbox([
      path.join(sandbox, "node_modules/tsx/dist/cli.mjs"),
      "--conditions=react-server",
      "scripts/check-packs.ts",
    ]).then(
      () => null,
      (e: { code: number; stdout: string }) => e,
    );
    expect(failed?.code).toBe(1);
    expect(failed?.stdout).toMatch(
      /^FAIL\s+get_parking\s+FAULT example run threw RangeError: the car park map is empty/m,
    );
    writeFileSync(file, text);
  }, 240_000);
});
