import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect, type Page, test } from "@playwright/test";
import { E2E } from "../support/e2e-env";
import { instanceEnv, startStandalone } from "../support/standalone";

// A production server of a spec's own, on a fresh embedded database, for specs that read what the server
// writes or stop it: started before the spec's first test, killed and its data removed after the last.

export type OwnInstance = { base: string; port: number; logs(): string; child: ChildProcess };

export function ownInstance(name: string, extra: Record<string, string> = {}): OwnInstance {
  const own: OwnInstance = { base: "", port: 0, logs: () => "", child: undefined as unknown as ChildProcess };
  let dataDir = "";
  test.beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), `michi-${name}-`));
    const started = await startStandalone({
      env: (port) =>
        instanceEnv({
          publicUrl: `http://127.0.0.1:${port}`,
          modelUrl: E2E.modelUrl,
          database: { embedded: dataDir },
          extra: {
            MICHI_ADMIN_EMAIL: E2E.operator.email,
            MICHI_ADMIN_PASSWORD: E2E.operator.password, // the operator owns the demo business
            ...extra,
          },
        }),
    });
    Object.assign(own, {
      base: `http://127.0.0.1:${started.port}`,
      port: started.port,
      logs: started.logs,
      child: started.child,
    });
  });
  test.afterAll(() => {
    if (own.child && own.child.exitCode === null) own.child.kill("SIGKILL");
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });
  return own;
}

export async function signInAt(base: string, page: Page, who: { email: string; password: string }) {
  await page.goto(`${base}/signin`);
  await page.getByLabel("E-mail").fill(who.email);
  await page.getByLabel("Password", { exact: true }).fill(who.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(/\/admin(\/|$)/);
}

/** One raw HTTP/1.1 exchange, so the request line can be what no fetch() would send (no client normalises it). */
export function rawRequest(port: number, head: string): Promise<{ status: number; head: string }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1");
    let got = "";
    socket.setTimeout(10_000, () => socket.destroy(new Error("no answer within 10 s")));
    socket.on("data", (d) => {
      got += String(d);
      const end = got.indexOf("\r\n\r\n");
      if (end >= 0) {
        socket.destroy();
        resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(got)?.[1]), head: got.slice(0, end) });
      }
    });
    socket.on("error", reject);
    socket.write(`${head}\r\nConnection: close\r\n\r\n`);
  });
}
