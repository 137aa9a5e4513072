import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { Webhook } from "standardwebhooks";
import { E2E } from "../support/e2e-env";
import { instanceEnv, startStandalone } from "../support/standalone";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver";

// Signed webhooks end to end, on a production server of its own (embedded database, so the queue runs
// in-process on PGlite): the owner adds an endpoint in the admin and copies the secret shown once, a visitor
// chats, the conversation goes quiet, and a local https receiver (trusted through the operator's extra CA)
// gets conversation.finished with a signature that verifies against that secret. The delivery log shows it
// and Redeliver sends the same message again. SIGTERM then stops the queue and the server cleanly.

let PUBLIC = "";
let child: ChildProcess;
let dataDir: string;
let receiver: WebhookReceiver;

test.describe.configure({ timeout: 120_000 });

test.beforeAll(async () => {
  receiver = await startWebhookReceiver();
  dataDir = mkdtempSync(path.join(tmpdir(), "michi-webhooks-"));
  const caFile = path.join(dataDir, "receiver-ca.pem");
  writeFileSync(caFile, receiver.caPem);
  const started = await startStandalone({
    env: (port) =>
      instanceEnv({
        publicUrl: `http://localhost:${port}`,
        modelUrl: E2E.modelUrl,
        database: { embedded: dataDir },
        extra: {
          MICHI_ADMIN_EMAIL: E2E.operator.email,
          MICHI_ADMIN_PASSWORD: E2E.operator.password, // the operator owns the demo business
          MICHI_FETCH_ALLOW_HOSTS: receiver.host,
          MICHI_FETCH_EXTRA_CA: caFile,
          MICHI_WEBHOOK_QUIET_SECONDS: "2",
          MICHI_MAIL_OUTBOX: "true",
        },
      }),
  });
  child = started.child;
  PUBLIC = `http://localhost:${started.port}`;
});

test.afterAll(async () => {
  if (child && child.exitCode === null) child.kill("SIGKILL");
  await receiver?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

async function chatOnce(message: string): Promise<void> {
  const key = /data-michi-key="([^"]+)"/.exec(await (await fetch(`${PUBLIC}/demo`)).text())?.[1];
  expect(key).toBeTruthy();
  const headers = { "content-type": "application/json", origin: PUBLIC };
  const { token } = (await (
    await fetch(`${PUBLIC}/api/widget/${key}/session`, { method: "POST", headers, body: "{}" })
  ).json()) as { token: string };
  const res = await fetch(`${PUBLIC}/api/widget/${key}/chat`, {
    method: "POST",
    headers: { ...headers, authorization: `Bearer ${token}` },
    body: JSON.stringify({ message }),
  });
  expect(res.status).toBe(200);
  expect(await res.text()).toContain("event: done");
}

test("an endpoint added in the admin gets a signed conversation.finished, and redelivery repeats it", async ({
  page,
}) => {
  await page.goto(`${PUBLIC}/signin`);
  await page.getByLabel("E-mail").fill(E2E.operator.email);
  await page.getByLabel("Password").fill(E2E.operator.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL(/\/admin/);

  await page.goto(`${PUBLIC}/admin/demo/webhooks`);
  await page.getByLabel("Endpoint URL").fill(receiver.url("/michi"));
  await page.getByLabel("Description (optional)").fill("Our CRM");
  await page.getByRole("checkbox", { name: /conversation\.finished/ }).check();
  await page.getByRole("button", { name: "Add endpoint" }).click();
  const secret = (await page.getByLabel("Signing secret").textContent())?.trim() ?? "";
  expect(secret).toMatch(/^whsec_/);

  await chatOnce("Hello, are you open?");
  const [hook] = await receiver.waitFor(1, 30_000);
  const event = new Webhook(secret).verify(hook!.body, hook!.headers as Record<string, string>) as {
    type: string;
    data: { conversation: { id: string; messageCount: number; adminUrl: string } };
  };
  expect(event.type).toBe("conversation.finished");
  expect(event.data.conversation.messageCount).toBe(2);
  expect(event.data.conversation.adminUrl).toBe(
    `${PUBLIC}/admin/demo/conversations/${event.data.conversation.id}`,
  );
  expect(hook!.body).not.toContain(secret.slice("whsec_".length));

  await page.goto(`${PUBLIC}/admin/demo/webhooks`);
  await page.getByRole("link", { name: receiver.url("/michi") }).click();
  const row = page.locator(`tr[data-delivery="${hook!.headers["webhook-id"]}"]`);
  await expect(row).toContainText("Delivered");
  await expect(row).toContainText("HTTP 200");
  await row.getByRole("button", { name: /Redeliver/ }).click();
  await expect(row.getByRole("status")).toContainText("Queued");
  const [, again] = await receiver.waitFor(2, 30_000);
  expect(again!.headers["webhook-id"]).toBe(hook!.headers["webhook-id"]);
  expect(new Webhook(secret).verify(again!.body, again!.headers as Record<string, string>)).toEqual(event);
  await page.reload();
  await expect(page.locator(`tr[data-delivery="${hook!.headers["webhook-id"]}"]`)).toContainText("Delivered");

  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  child.kill("SIGTERM");
  expect(await exited).toBe(0);
});
