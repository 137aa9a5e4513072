import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";

// The server's log lines are gathered and written together (src/lib/log.ts). An operator must still get every
// line: on a quiet server without waiting for more lines to fill the buffer, and when the process exits or
// crashes. Each case runs the real logger in a process of its own, since exiting is what is tested.

const root = path.resolve(import.meta.dirname, "../..");
const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill("SIGKILL");
});

function run(script: string) {
  const child = spawn(
    process.execPath,
    ["--conditions=react-server", "--import", "tsx", "--input-type=module", "-e", script],
    { cwd: root, env: { ...process.env, MICHI_LOG_LEVEL: "info" }, stdio: ["ignore", "pipe", "pipe"] },
  );
  children.push(child);
  let out = "";
  child.stdout.on("data", (d: Buffer) => {
    out += d.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", resolve));
  const messages = () =>
    out
      .split("\n")
      .filter(Boolean)
      .map((line) => (JSON.parse(line) as { msg: string }).msg);
  return { exited, messages, child };
}

const logTwo = `import { log } from "./src/lib/log.ts"; log().info("first"); log().warn("second");`;

// Each case starts Node with tsx, which takes seconds on a loaded machine: the limit is for that start-up.
describe("gathered log lines", { timeout: 30_000 }, () => {
  it("are all written when the process crashes", async () => {
    const p = run(`${logTwo} setTimeout(() => { throw new Error("crash") }, 5);`);
    expect(await p.exited).toBe(1);
    expect(p.messages()).toEqual(["first", "second"]);
  });

  it("are all written when the process exits on its own", async () => {
    const p = run(`${logTwo} setTimeout(() => process.exit(3), 5);`);
    expect(await p.exited).toBe(3);
    expect(p.messages()).toEqual(["first", "second"]);
  });

  it("reach stdout on a quiet server, while the process runs on", async () => {
    // Two short lines are far below the 4 KB that would fill the buffer: only the periodic flush writes them.
    const p = run(`${logTwo} setInterval(() => {}, 1000);`);
    await new Promise<void>((resolve, reject) => {
      p.child.stdout?.on("data", () => {
        if (p.messages().length === 2) resolve();
      });
      p.child.on("exit", () => reject(new Error("exited before writing")));
    });
    expect(p.child.exitCode).toBeNull();
    expect(p.messages()).toEqual(["first", "second"]);
  });
});
