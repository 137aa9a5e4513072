import { createHmac } from "node:crypto";
import { sql } from "drizzle-orm";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { installTestDb } from "../support/admin-env";
import { makeTenant, makeUser } from "../support/admin-world";
import type { TestDb } from "../support/db";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver";
import { startTestWebhookQueue } from "../support/webhooks";

// publishEvent enqueues inside the caller's tenant transaction; a worker signs and posts it. The signature
// is checked twice, independently of our signing code: by the standardwebhooks package's verify, and by an
// HMAC computed here from the specification's own recipe
// (https://github.com/standard-webhooks/standard-webhooks/blob/main/spec/standard-webhooks.md#signature-scheme):
// base64(HMAC-SHA256(key = base64-decoded secret without "whsec_", "{webhook-id}.{webhook-timestamp}.{body}")),
// sent as "v1,<signature>".

let receiver: WebhookReceiver;
process.env.MICHI_FETCH_ALLOW_HOSTS = "";
receiver = await startWebhookReceiver();
process.env.MICHI_FETCH_ALLOW_HOSTS = receiver.host;

const { rowsOf } = await import("@/lib/db/client");
const { publishEvent } = await import("@/lib/webhooks/publish");
const { createWebhookEndpoint } = await import("@/lib/webhooks/endpoints");
const { installWebhookQueue } = await import("@/lib/webhooks/worker");

let t: TestDb;
let queue: Awaited<ReturnType<typeof startTestWebhookQueue>>;
let tenantId: string;
let ctx: Parameters<typeof createWebhookEndpoint>[0];
let secret: string;

beforeAll(async () => {
  t = await installTestDb();
  const owner = await makeUser(t.handle, "owner@hooks.test");
  const tenant = await makeTenant(t.handle, "hooks", [[owner, "owner"]]);
  tenantId = tenant.id;
  ctx = {
    db: t.handle,
    tenant,
    role: "owner",
    user: { id: owner.id, email: owner.email, name: "", isOperator: false, mustChangePassword: false },
  } as Parameters<typeof createWebhookEndpoint>[0];
  queue = await startTestWebhookQueue(t.handle, receiver);
  const created = await createWebhookEndpoint(ctx, {
    url: receiver.url("/hook"),
    description: "test",
    events: ["lead.created"],
  });
  secret = created.secret;
}, 60_000);

afterAll(async () => {
  await queue?.stop();
  installWebhookQueue(null);
  await receiver?.close();
  await t?.close();
});

describe("publishEvent", () => {
  it("delivers a committed event once, signed per the Standard Webhooks spec", async () => {
    const before = receiver.received.length;
    const { messageId, deliveries } = await t.handle.forTenant(tenantId, (tx) =>
      publishEvent(tx, {
        tenantId,
        type: "lead.created",
        data: { lead: { id: "L1", email: "a@b.example" } },
      }),
    );
    expect(deliveries).toBe(1);
    const [hook] = (await receiver.waitFor(before + 1)).slice(before);
    expect(hook!.path).toBe("/hook");
    expect(hook!.headers["webhook-id"]).toBe(messageId);
    const body = JSON.parse(hook!.body);
    expect(body).toMatchObject({ type: "lead.created", data: { lead: { id: "L1", email: "a@b.example" } } });
    expect(Date.parse(body.timestamp)).not.toBeNaN();

    const headers = {
      "webhook-id": String(hook!.headers["webhook-id"]),
      "webhook-timestamp": String(hook!.headers["webhook-timestamp"]),
      "webhook-signature": String(hook!.headers["webhook-signature"]),
    };
    expect(new Webhook(secret).verify(hook!.body, headers)).toEqual(body);
    const key = Buffer.from(secret.slice("whsec_".length), "base64");
    const expected = createHmac("sha256", key)
      .update(`${headers["webhook-id"]}.${headers["webhook-timestamp"]}.${hook!.body}`)
      .digest("base64");
    expect(headers["webhook-signature"]).toBe(`v1,${expected}`);
    expect(() => new Webhook(secret).verify(`${hook!.body} `, headers)).toThrow();
    // The body carries no secret of the endpoint's.
    expect(hook!.body).not.toContain(secret.slice(6));

    const rows = await rowsOf<{ status: string; attempts: number; last_status_code: number }>(
      t.handle.platform,
      sql`select status, attempts, last_status_code from webhook_deliveries where message_id = ${messageId}`,
    );
    await expect
      .poll(
        async () =>
          (
            await rowsOf<{ status: string }>(
              t.handle.platform,
              sql`select status from webhook_deliveries where message_id = ${messageId}`,
            )
          )[0]?.status,
      )
      .toBe("delivered");
    expect(rows).toHaveLength(1);
  });

  it("enqueues nothing for a write that rolls back", async () => {
    let deliveryId = "";
    await expect(
      t.handle.forTenant(tenantId, async (tx) => {
        const r = await publishEvent(tx, { tenantId, type: "lead.created", data: { lead: { id: "L2" } } });
        expect(r.deliveries).toBe(1); // the delivery and its job were written in this transaction…
        const [row] = await rowsOf<{ id: string }>(
          tx,
          sql`select id from webhook_deliveries where message_id = ${r.messageId}`,
        );
        deliveryId = row!.id;
        throw new Error("the lead's own write failed");
      }),
    ).rejects.toThrow("the lead's own write failed");
    // …and went with it.
    expect(
      await rowsOf(t.handle.platform, sql`select 1 from webhook_deliveries where id = ${deliveryId}`),
    ).toHaveLength(0);
    expect(
      await rowsOf(
        t.handle.platform,
        sql`select 1 from pgboss.job where name = 'webhook-delivery' and data->>'deliveryId' = ${deliveryId}`,
      ),
    ).toHaveLength(0);
    const committed = await rowsOf<{ n: number }>(
      t.handle.platform,
      sql`select count(*)::int as n from pgboss.job where name = 'webhook-delivery'`,
    );
    expect(committed[0]!.n).toBe(1); // only the first test's committed event ever reached the queue
  });

  it("sends nothing for an event no endpoint asked for, and refuses credentials in a payload", async () => {
    const r = await t.handle.forTenant(tenantId, (tx) =>
      publishEvent(tx, { tenantId, type: "feedback.created", data: { rating: "up" } }),
    );
    expect(r.deliveries).toBe(0);
    await expect(
      t.handle.forTenant(tenantId, (tx) =>
        publishEvent(tx, { tenantId, type: "lead.created", data: { apiKey: "x" } }),
      ),
    ).rejects.toThrow(/no credentials/);
  });
});
