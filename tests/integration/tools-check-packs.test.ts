import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { ALL_PACKS } from "@/lib/tools/index";

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, "../..");

describe("npm run check:packs", () => {
  it("passes on the built-in packs with one PASS line each", async () => {
    const { stdout } = await run(
      process.execPath,
      [
        path.join(root, "node_modules/tsx/dist/cli.mjs"),
        "--conditions=react-server",
        "scripts/check-packs.ts",
      ],
      {
        cwd: root,
        timeout: 120_000,
      },
    );
    for (const pack of ALL_PACKS) expect(stdout).toMatch(new RegExp(`^PASS\\s+${pack.id}\\s`, "m"));
    expect(stdout).not.toMatch(/^FAIL/m);
    expect(stdout).toMatch(new RegExp(`${ALL_PACKS.length} passed, 0 failed`));
  }, 120_000);
});
