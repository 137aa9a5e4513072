import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";

// `npm start` reads the same .env files as `npm run dev`, with the same precedence: the real environment
// first, then .env.production.local, .env.local, .env.production, .env.

const script = path.resolve(import.meta.dirname, "../../scripts/env-files.mjs");

function startEnv(files: Record<string, string>, real: Record<string, string> = {}) {
  const dir = mkdtempSync(path.join(tmpdir(), "michi-env-"));
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, name), text);
  const code = `const { loadEnvFiles } = await import(${JSON.stringify(script)});
const read = loadEnvFiles(${JSON.stringify(dir)});
console.log(JSON.stringify({ read, A: process.env.A, B: process.env.B, C: process.env.C }));`;
  const out = execFileSync(process.execPath, ["--input-type=module", "-e", code], {
    env: { PATH: process.env.PATH, NODE_ENV: "production", ...real },
    encoding: "utf8",
  });
  return JSON.parse(out) as { read: string[]; A?: string; B?: string; C?: string };
}

describe("the .env files npm start reads", () => {
  it("reads .env.local and .env, the local file winning", () => {
    const r = startEnv({ ".env": "A=plain\nB=plain\n", ".env.local": "A=local\n" });
    expect(r).toEqual({ read: [".env.local", ".env"], A: "local", B: "plain" });
  });

  it("lets the real environment win over every file, and the production files over the plain ones", () => {
    const r = startEnv(
      {
        ".env": "A=plain\nC=plain\n",
        ".env.production": "B=prod\nC=prod\n",
        ".env.production.local": "C=prodlocal\n",
      },
      { A: "real" },
    );
    expect(r).toMatchObject({ A: "real", B: "prod", C: "prodlocal" });
  });

  it("reads nothing when there are no files", () => {
    expect(startEnv({}).read).toEqual([]);
  });
});
