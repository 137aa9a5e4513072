import { eq } from "drizzle-orm";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TenantContext } from "@/lib/auth/access";
import { writeLiveSettings } from "@/lib/db/queries/live-presence";
import { addMembership } from "@/lib/db/queries/users";
import { conversations, tenants } from "@/lib/db/schema";
import { escalateWaiting, liveEscalationWorkers } from "@/lib/live/escalation";
import { recordPresence } from "@/lib/live/presence";
import { requestPerson } from "@/lib/live/request";
import { claimConversation } from "@/lib/live/takeover";
import type { JobQueue } from "@/lib/queue";
import { createWebhookPoster } from "@/lib/security/webhook-post";
import { createWebhookEndpoint } from "@/lib/webhooks/endpoints";
import { installWebhookQueue, startWebhookQueue } from "@/lib/webhooks/worker";
import { formatDateTime } from "@/shared/dates";
import { makeUser } from "../support/admin-world";
import { type ChatWorld, startChatWorld } from "../support/chat-world";
import { startSmtpServer, type TestSmtpServer } from "../support/smtp-server";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver";
import { TEST_POLICY } from "../support/webhooks";

// Nobody claims a waiting visitor (issue #28): after the business's N minutes the durable job mails the team
// (a real SMTP server in the test process) and sends a signed handoff.waiting webhook (a local https
// receiver, the signature checked with the standardwebhooks package). A visitor claimed in time is not
// escalated. N is 0 here, so the job runs a second after the request.

let w: ChatWorld;
let smtp: TestSmtpServer;
let receiver: WebhookReceiver;
let queue: JobQueue;
let shop: Awaited<ReturnType<ChatWorld["tenant"]>>;
let owner: TenantContext;
let secret: string;
let n = 0;

async function waitingVisitor() {
  const visitorId = `visitor-${++n}`;
  const [c] = await w.db.platform
    .insert(conversations)
    .values({ tenantId: shop.id, visitorId, locale: "es" })
    .returning();
  expect(await requestPerson(w.db, { tenantId: shop.id, visitorId, conversationId: c!.id })).toMatchObject({
    live: true,
  });
  return c!.id;
}

beforeAll(async () => {
  smtp = await startSmtpServer();
  receiver = await startWebhookReceiver();
  w = await startChatWorld({ MICHI_FETCH_ALLOW_HOSTS: receiver.host, MICHI_SMTP_URL: smtp.url });
  shop = await w.tenant();
  // The mail reads in the business's zone (issue 45 item 3), not as an ISO instant in UTC.
  await w.db.platform.update(tenants).set({ timeZone: "Asia/Tokyo" }).where(eq(tenants.id, shop.id));
  const user = await makeUser(w.db, "owner@live.test");
  await addMembership(w.db.platform, shop.id, user.id, "owner");
  owner = {
    db: w.db,
    tenant: shop,
    role: "owner",
    user: { id: user.id, email: user.email, name: "Olga", isOperator: false, mustChangePassword: false },
  };
  const poster = createWebhookPoster({
    allowHosts: [receiver.host],
    extraCaPem: receiver.caPem,
    timeoutMs: 5000,
  });
  const q = await startWebhookQueue(w.db, {
    pollingIntervalSeconds: 0.5,
    policies: { "webhook-delivery": TEST_POLICY },
    deps: { poster },
    extraWorkers: liveEscalationWorkers(w.db),
  });
  queue = {
    ...q,
    async stop() {
      await q.stop();
      await poster.close();
    },
  };
  installWebhookQueue(queue);
  secret = (
    await createWebhookEndpoint(owner, {
      url: receiver.url("/hook"),
      description: "Pager",
      events: ["handoff.waiting"],
    })
  ).secret;
  await w.db.forTenant(shop.id, (tx) =>
    writeLiveSettings(tx, shop.id, { maxPerAgent: 3, escalateAfterMin: 0, hours: null, savedReplies: [] }),
  );
  await recordPresence(owner, {});
}, 60_000);

afterAll(async () => {
  await queue?.stop();
  installWebhookQueue(null);
  await w?.close();
  await receiver?.close();
  await smtp?.close();
});

describe("a visitor nobody claims", () => {
  it("is escalated by mail to the team and a signed handoff.waiting webhook", async () => {
    const id = await waitingVisitor();
    await expect
      .poll(() => smtp.received.filter((m) => m.text?.includes(id)).length, { timeout: 15_000 })
      .toBe(1);
    const mail = smtp.received.find((m) => m.text?.includes(id));
    expect(mail?.envelope.to).toEqual(["owner@live.test"]);
    expect(mail?.subject).toContain("is waiting for a person");
    const [c] = await w.db.platform.select().from(conversations).where(eq(conversations.id, id));
    expect(mail?.text).toContain(
      `asked to talk with a person at ${formatDateTime(c!.liveRequestedAt!, { tz: "Asia/Tokyo" })} and`,
    );
    expect(mail?.text).toMatch(/ GMT\+9 and nobody/);
    expect(mail?.text).not.toContain("(UTC)");
    await expect.poll(() => receiver.received.length, { timeout: 15_000 }).toBeGreaterThan(0);
    const hook = receiver.received.at(-1)!;
    const headers = Object.fromEntries(Object.entries(hook.headers).map(([k, v]) => [k, String(v)]));
    const event = new Webhook(secret).verify(hook.body, headers) as {
      type: string;
      data: { conversation: { id: string; locale: string } };
    };
    expect(event.type).toBe("handoff.waiting");
    expect(event.data.conversation).toMatchObject({ id, locale: "es" });
  });

  it("is not escalated once claimed", async () => {
    const id = await waitingVisitor();
    await claimConversation(owner, { conversationId: id });
    const mails = smtp.received.length;
    const hooks = receiver.received.length;
    // The job's own body, for the request it was queued for: the visitor has a person, so nothing goes out.
    await escalateWaiting(w.db, {
      tenantId: shop.id,
      conversationId: id,
      requestedAt: new Date().toISOString(),
    });
    expect(smtp.received.length).toBe(mails);
    expect(receiver.received.length).toBe(hooks);
  });
});
