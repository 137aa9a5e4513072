import { sql } from "drizzle-orm";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { installTestDb } from "../support/admin-env";
import { makeTenant, makeUser } from "../support/admin-world";
import type { TestDb } from "../support/db";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver";
import { startTestWebhookQueue } from "../support/webhooks";

// Webhooks that behave as an integrator expects: a new endpoint gets only what happens after it exists, a
// thumbs-down and its comment are one feedback.created, "Send test event" reaches that endpoint alone, and the
// form reports every problem at once.

const receiver: WebhookReceiver = await startWebhookReceiver();
process.env.MICHI_FETCH_ALLOW_HOSTS = receiver.host;
process.env.MICHI_WEBHOOK_FEEDBACK_SETTLE_SECONDS = "2";

const endpoints = await import("@/lib/webhooks/endpoints");
const { sweepQuietConversations } = await import("@/lib/webhooks/quiet");
const { installWebhookQueue } = await import("@/lib/webhooks/worker");
const { rateAnswer } = await import("@/lib/feedback/rate");
const { conversations, messages } = await import("@/lib/db/schema");
const { rowsOf } = await import("@/lib/db/client");
type Ctx = Parameters<typeof endpoints.createWebhookEndpoint>[0];

let t: TestDb;
let queue: { stop(): Promise<void> };
let n = 0;

beforeAll(async () => {
  t = await installTestDb();
  queue = await startTestWebhookQueue(t.handle, receiver);
}, 60_000);
afterAll(async () => {
  await queue?.stop();
  installWebhookQueue(null);
  await receiver.close();
  await t?.close();
});

/** A business of its own per test, with one endpoint at its own path of the receiver. */
async function business(events: ("lead.created" | "feedback.created" | "conversation.finished")[]) {
  n++;
  const owner = await makeUser(t.handle, `owner${n}@behave.test`);
  const tenant = await makeTenant(t.handle, `behave-${n}`, [[owner, "owner"]]);
  const ctx = {
    db: t.handle,
    tenant,
    role: "owner",
    user: { id: owner.id, email: owner.email, name: "", isOperator: false, mustChangePassword: false },
  } as Ctx;
  const path = `/hook-${n}`;
  const created = await endpoints.createWebhookEndpoint(ctx, {
    url: receiver.url(path),
    description: "",
    events,
  });
  const hooks = () => receiver.received.filter((h) => h.path === path);
  return { ctx, tenantId: tenant.id, endpointId: created.endpointId, secret: created.secret, hooks };
}

async function conversation(tenantId: string, lastActivityAt: Date) {
  return t.handle.forTenant(tenantId, async (tx) => {
    const [c] = await tx
      .insert(conversations)
      .values({ tenantId, visitorId: "visitor-1", startedAt: lastActivityAt, lastActivityAt })
      .returning();
    await tx
      .insert(messages)
      .values({ tenantId, conversationId: c!.id, role: "user", content: "Do you deliver?" });
    const [answer] = await tx
      .insert(messages)
      .values({ tenantId, conversationId: c!.id, role: "assistant", content: "No." })
      .returning();
    return { id: c!.id, answerId: answer!.id };
  });
}

const settle = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function deliveriesOf(tenantId: string, endpointId: string) {
  return t.handle.forTenant(tenantId, (tx) =>
    rowsOf<{ eventType: string; status: string }>(
      tx,
      sql`select event_type as "eventType", status from webhook_deliveries where endpoint_id = ${endpointId}::uuid`,
    ),
  );
}

describe("a new endpoint", () => {
  it("receives only the conversations that finish after it was created, not a backlog", async () => {
    const quietMs = 5 * 60_000;
    // Quiet for ten minutes already: finished before any endpoint existed.
    const b = await business(["conversation.finished"]);
    await conversation(b.tenantId, new Date(Date.now() - 10 * 60_000));
    expect((await sweepQuietConversations(t.handle, { quietMs })).published).toBe(0);
    // Its last message a minute ago: it finishes four minutes from now, after the endpoint was made.
    const fresh = await conversation(b.tenantId, new Date(Date.now() - 60_000));
    const later = new Date(Date.now() + 5 * 60_000);
    expect((await sweepQuietConversations(t.handle, { quietMs, now: later })).published).toBe(1);
    await expect.poll(() => b.hooks().length, { timeout: 15_000 }).toBe(1);
    const body = new Webhook(b.secret).verify(
      b.hooks()[0]!.body,
      b.hooks()[0]!.headers as Record<string, string>,
    );
    expect(body).toMatchObject({ type: "conversation.finished", data: { conversation: { id: fresh.id } } });
  });
});

describe("a rating with a comment", () => {
  it("is one feedback.created carrying the comment; a later change of mind is a new event", async () => {
    const b = await business(["feedback.created"]);
    const c = await conversation(b.tenantId, new Date());
    const rate = (body: object) =>
      rateAnswer(t.handle, { tenantId: b.tenantId, visitorId: "visitor-1", body });
    // The panel records the thumbs-down at once, then sends the comment the visitor types.
    await rate({ messageId: c.answerId, rating: "down" });
    await rate({ messageId: c.answerId, rating: "down", comment: "I asked about Sundays" });
    await expect.poll(() => b.hooks().length, { timeout: 15_000 }).toBe(1);
    await settle(2500); // a second event, if any, would be due by now
    expect(b.hooks()).toHaveLength(1);
    const first = JSON.parse(b.hooks()[0]!.body);
    expect(first.data.feedback).toMatchObject({ rating: "down", comment: "I asked about Sundays" });

    await rate({ messageId: c.answerId, rating: "up" });
    await expect.poll(() => b.hooks().length, { timeout: 15_000 }).toBe(2);
    expect(JSON.parse(b.hooks()[1]!.body).data.feedback).toMatchObject({ rating: "up" });
  });
});

describe("Send test event", () => {
  it("sends one signed webhook.test to that endpoint alone, listed in its deliveries", async () => {
    const b = await business(["lead.created"]);
    const other = await business(["lead.created"]);
    await endpoints.sendTestWebhook(b.ctx, b.endpointId);
    await expect.poll(() => b.hooks().length, { timeout: 15_000 }).toBe(1);
    const hook = b.hooks()[0]!;
    const body = new Webhook(b.secret).verify(hook.body, hook.headers as Record<string, string>);
    expect(body).toMatchObject({ type: "webhook.test", data: { test: { endpointId: b.endpointId } } });
    expect(other.hooks()).toHaveLength(0);
    await expect
      .poll(async () => deliveriesOf(b.tenantId, b.endpointId))
      .toEqual([{ eventType: "webhook.test", status: "delivered" }]);
    // Another business's endpoint is not found through this one's context.
    await expect(endpoints.sendTestWebhook(b.ctx, other.endpointId)).rejects.toMatchObject({
      code: "not_found",
    });
  });
});

describe("the endpoint form", () => {
  it("reports a refused address and a missing event together", async () => {
    const b = await business(["lead.created"]);
    const refused = endpoints.createWebhookEndpoint(b.ctx, {
      url: "http://localhost:8080/hook",
      description: "",
      events: [],
    });
    await expect(refused).rejects.toMatchObject({
      code: "invalid_input",
      details: { fieldErrors: { url: [expect.any(String)], events: ["Choose at least one event"] } },
    });
    await expect(
      endpoints.createWebhookEndpoint(b.ctx, { url: "", description: "", events: [] }),
    ).rejects.toMatchObject({
      details: {
        fieldErrors: { url: [expect.stringMatching(/Enter the address/)], events: [expect.any(String)] },
      },
    });
  });
});
