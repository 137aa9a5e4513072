import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { E2E } from "../support/e2e-env";
import { instanceEnv, startStandalone } from "../support/standalone";

// SIGTERM on a production instance: running chats finish, new connections are refused, the process exits 0.
let BASE = "";
let PUBLIC = "";

test.describe.configure({ timeout: 90_000 });

let child: ChildProcess;
let dataDir: string;
let logs: () => string = () => "";

test.beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), "michi-shutdown-"));
  const started = await startStandalone({
    env: (port) =>
      instanceEnv({
        publicUrl: `http://localhost:${port}`,
        modelUrl: E2E.modelUrl,
        database: { embedded: dataDir },
        extra: { MICHI_ADMIN_PASSWORD: "shutdown-operator-password", MICHI_SHUTDOWN_GRACE_MS: "20000" },
      }),
  });
  child = started.child;
  logs = started.logs;
  BASE = `http://127.0.0.1:${started.port}`;
  PUBLIC = `http://localhost:${started.port}`;
});

test.afterAll(() => {
  if (child.exitCode === null) child.kill("SIGKILL");
  rmSync(dataDir, { recursive: true, force: true });
});

test("SIGTERM lets a running answer finish, refuses new connections, then exits cleanly", async () => {
  const key = /data-michi-key="([^"]+)"/.exec(await (await fetch(`${BASE}/demo`)).text())?.[1];
  expect(key).toBeTruthy();
  await fetch(`${E2E.modelUrl}/__control/rules`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify([
      {
        match: "slow goodbye",
        steps: [{ type: "slow_text", text: "one two three four five six seven eight", chunkDelayMs: 250 }],
      },
    ]),
  });
  const headers = { "content-type": "application/json", origin: PUBLIC };
  const { token } = (await (
    await fetch(`${BASE}/api/widget/${key}/session`, { method: "POST", headers, body: "{}" })
  ).json()) as {
    token: string;
  };
  const res = await fetch(`${BASE}/api/widget/${key}/chat`, {
    method: "POST",
    headers: { ...headers, authorization: `Bearer ${token}` },
    body: JSON.stringify({ message: "slow goodbye" }),
  });
  expect(res.status).toBe(200);
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let stream = "";
  while (!stream.includes("event: delta")) {
    const { value, done } = await reader.read();
    if (done) break;
    stream += decoder.decode(value, { stream: true });
  }
  expect(stream).not.toContain("event: done");

  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  child.kill("SIGTERM");
  await expect.poll(() => logs().includes("shutting down"), { timeout: 10_000 }).toBe(true);
  // No new connections while draining.
  await expect(fetch(`${BASE}/api/live`, { signal: AbortSignal.timeout(3000) })).rejects.toThrow();

  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    stream += decoder.decode(value, { stream: true });
  }
  expect(stream).toContain("event: done");
  const answer = [...stream.matchAll(/event: delta\ndata: (.+)/g)].map(
    (m) => (JSON.parse(m[1]!) as { text: string }).text,
  );
  expect(answer.join("")).toBe("one two three four five six seven eight");
  expect(await exited).toBe(0);
});
