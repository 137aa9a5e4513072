import { sql } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { installTestDb } from "../support/admin-env";
import { makeTenant, makeUser } from "../support/admin-world";
import type { TestDb } from "../support/db";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver";
import { startTestWebhookQueue } from "../support/webhooks";

// The durable queue under the conditions it exists for: a server restarting in the middle of a delivery's
// retries, two servers sharing one database, and a receiver that keeps failing. The backoff is pg-boss's own
// arithmetic with a one-second base (production: thirty seconds, see WEBHOOK_DELIVERY_POLICY), so the test
// checks the growing gaps instead of sleeping through real ones.

const receiver: WebhookReceiver = await startWebhookReceiver();
process.env.MICHI_FETCH_ALLOW_HOSTS = receiver.host;

const { rowsOf } = await import("@/lib/db/client");
const { publishEvent } = await import("@/lib/webhooks/publish");
const { createWebhookEndpoint } = await import("@/lib/webhooks/endpoints");
const { installWebhookQueue } = await import("@/lib/webhooks/worker");
type Ctx = Parameters<typeof createWebhookEndpoint>[0];

let t: TestDb;
let ctx: Ctx;
let tenantId: string;
const running: { stop(): Promise<void> }[] = [];

beforeAll(async () => {
  t = await installTestDb();
  const owner = await makeUser(t.handle, "owner@queue.test");
  const tenant = await makeTenant(t.handle, "queue", [[owner, "owner"]]);
  tenantId = tenant.id;
  ctx = {
    db: t.handle,
    tenant,
    role: "owner",
    user: { id: owner.id, email: owner.email, name: "", isOperator: false, mustChangePassword: false },
  } as Ctx;
}, 60_000);

afterEach(async () => {
  for (const q of running.splice(0)) await q.stop();
  installWebhookQueue(null);
  receiver.answer(200);
  receiver.received.length = 0;
  await t.handle.platform.execute(sql`delete from webhook_endpoints`);
});

afterAll(async () => {
  await receiver.close();
  await t?.close();
});

async function addEndpoint(path: string) {
  const r = await createWebhookEndpoint(ctx, {
    url: receiver.url(path),
    description: "",
    events: ["lead.created"],
  });
  return r.endpointId;
}

async function instance(opts: Parameters<typeof startTestWebhookQueue>[2] = {}) {
  const q = await startTestWebhookQueue(t.handle, receiver, opts);
  running.push(q);
  return q;
}

function publish(leadId: string) {
  return t.handle.forTenant(tenantId, (tx) =>
    publishEvent(tx, { tenantId, type: "lead.created", data: { lead: { id: leadId } } }),
  );
}

async function delivery(messageId: string) {
  const [row] = await rowsOf<{ status: string; attempts: number; last_status_code: number | null }>(
    t.handle.platform,
    sql`select status, attempts, last_status_code from webhook_deliveries where message_id = ${messageId}`,
  );
  return row;
}

/** Waits for the queue to go idle: nothing left that could still post. */
async function settled() {
  await expect
    .poll(
      async () =>
        (
          await rowsOf<{ n: number }>(
            t.handle.platform,
            sql`select count(*)::int as n from pgboss.job where name = 'webhook-delivery' and state in ('created', 'retry', 'active')`,
          )
        )[0]!.n,
      { timeout: 20_000, interval: 200 },
    )
    .toBe(0);
}

describe("webhook deliveries on the durable queue", () => {
  it("survive a server restart in the middle of their retries and are delivered once", async () => {
    await addEndpoint("/restart");
    const first = await instance({ install: true });
    receiver.answer(500);
    const { messageId } = await publish("restart-1");
    await receiver.waitFor(1);
    // The server goes away with the delivery waiting for its retry; the receiver recovers meanwhile.
    await first.stop();
    running.splice(running.indexOf(first), 1);
    expect(await delivery(messageId)).toMatchObject({
      status: "retrying",
      attempts: 1,
      last_status_code: 500,
    });
    receiver.answer(200);
    await instance(); // the restarted server: a new queue instance on the same database
    await receiver.waitFor(2);
    await settled();
    expect(receiver.received.map((r) => r.headers["webhook-id"])).toEqual([messageId, messageId]);
    expect(await delivery(messageId)).toMatchObject({
      status: "delivered",
      attempts: 2,
      last_status_code: 200,
    });
  }, 60_000);

  it("are delivered once each with two servers working the same queue", async () => {
    await addEndpoint("/twice");
    await instance();
    await instance({ install: false });
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) ids.push((await publish(`pair-${i}`)).messageId);
    await receiver.waitFor(12);
    await settled();
    const got = receiver.received.map((r) => String(r.headers["webhook-id"]));
    expect(got).toHaveLength(12);
    expect(new Set(got)).toEqual(new Set(ids));
  }, 60_000);

  it("retry a failing receiver with a growing backoff, then switch the endpoint off with a notice", async () => {
    const endpointId = await addEndpoint("/failing");
    await instance({ retryLimit: 2 });
    receiver.answer(500);
    const { messageId } = await publish("failing-1");
    const hits = await receiver.waitFor(3);
    await settled();
    expect(hits).toHaveLength(3); // the first attempt and two retries, nothing more
    const gap1 = hits[1]!.at - hits[0]!.at;
    const gap2 = hits[2]!.at - hits[1]!.at;
    // pg-boss: retry n waits between base·2^(n-1) and base·2^n seconds (base = 1 s here).
    expect(gap1).toBeGreaterThanOrEqual(900);
    expect(gap2).toBeGreaterThanOrEqual(1900);
    expect(await delivery(messageId)).toMatchObject({ status: "failed", attempts: 3, last_status_code: 500 });

    const [endpoint] = await rowsOf<{ enabled: boolean; disabled_reason: string | null }>(
      t.handle.platform,
      sql`select enabled, disabled_reason from webhook_endpoints where id = ${endpointId}`,
    );
    expect(endpoint!.enabled).toBe(false);
    expect(endpoint!.disabled_reason).toMatch(/3 failed attempts.*HTTP 500/);
    // The notice: an e-mail to the owner through the mail module (kept in the Outbox: no SMTP in tests).
    await expect
      .poll(async () =>
        rowsOf<{ to_address: string; subject: string; body_text: string }>(
          t.handle.platform,
          sql`select to_address, subject, body_text from mail_outbox where kind = 'webhook_disabled'`,
        ),
      )
      .toEqual([
        expect.objectContaining({
          to_address: "owner@queue.test",
          body_text: expect.stringContaining(`/admin/queue/webhooks/${endpointId}`),
        }),
      ]);
    const audit = await rowsOf(
      t.handle.platform,
      sql`select 1 from audit_log where action = 'webhook.endpoint_disabled' and target = ${endpointId}`,
    );
    expect(audit).toHaveLength(1);
    // A switched-off endpoint gets nothing more.
    expect((await publish("failing-2")).deliveries).toBe(0);
  }, 60_000);
});
