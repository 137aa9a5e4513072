import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POST as chatPost } from "@/app/api/widget/[key]/chat/route";
import { POST as contactPost } from "@/app/api/widget/[key]/contact/route";
import { POST as feedbackPost } from "@/app/api/widget/[key]/feedback/route";
import type { TenantContext } from "@/lib/auth/access";
import { addMembership } from "@/lib/db/queries/users";
import { packConfigs } from "@/lib/db/schema";
import { createWebhookEndpoint } from "@/lib/webhooks/endpoints";
import { installWebhookQueue } from "@/lib/webhooks/worker";
import { makeUser } from "../support/admin-world";
import { type ChatWorld, PLATFORM, readEvents, SITE, startChatWorld } from "../support/chat-world";
import { startSmtpServer, type TestSmtpServer } from "../support/smtp-server";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver";
import { startTestWebhookQueue } from "../support/webhooks";

// The business hears about a lead at once: a mail to its contact address and its owners (a real SMTP server
// in the test process) and a signed lead.created webhook (a local https receiver); a rating sends
// feedback.created. The signature is checked with the standardwebhooks package, independently of our signer.

let w: ChatWorld;
let smtp: TestSmtpServer;
let receiver: WebhookReceiver;
let queue: Awaited<ReturnType<typeof startTestWebhookQueue>>;
let shop: Awaited<ReturnType<ChatWorld["tenant"]>>;
let secret: string;

beforeAll(async () => {
  smtp = await startSmtpServer();
  receiver = await startWebhookReceiver();
  w = await startChatWorld({ MICHI_FETCH_ALLOW_HOSTS: receiver.host, MICHI_SMTP_URL: smtp.url });
  shop = await w.tenant({ bot: { model: "fake-small" } });
  const owner = await makeUser(w.db, "owner@shop.test");
  await addMembership(w.db.platform, shop.id, owner.id, "owner");
  await w.db.platform.insert(packConfigs).values({
    tenantId: shop.id,
    packId: "get_business_info",
    enabled: true,
    config: { email: "hello@shop.example" },
  });
  queue = await startTestWebhookQueue(w.db, receiver);
  const ctx = {
    db: w.db,
    tenant: shop,
    role: "owner",
    user: { id: owner.id, email: owner.email, name: "", isOperator: false, mustChangePassword: false },
  } as TenantContext;
  const created = await createWebhookEndpoint(ctx, {
    url: receiver.url("/hook"),
    description: "CRM",
    events: ["lead.created", "feedback.created"],
  });
  secret = created.secret;
  w.fake.setRules([{ match: "hello", steps: [{ type: "text", text: "Hello there." }] }]);
}, 60_000);

afterAll(async () => {
  await queue?.stop();
  installWebhookQueue(null);
  await w?.close();
  await receiver?.close();
  await smtp?.close();
});

function post(handler: typeof contactPost, path: string, token: string, body: unknown) {
  return handler(
    new Request(`${PLATFORM}/api/widget/${shop.widgetKey}/${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: SITE, authorization: `Bearer ${token}` },
      body: JSON.stringify(body),
    }),
    { params: Promise.resolve({ key: shop.widgetKey }) },
  );
}

function verified(hook: { headers: Record<string, unknown>; body: string }) {
  const headers = Object.fromEntries(Object.entries(hook.headers).map(([k, v]) => [k, String(v)]));
  return new Webhook(secret).verify(hook.body, headers) as { type: string; data: Record<string, unknown> };
}

describe("the business is told", () => {
  it("a lead: one mail to the contact address and one to each owner, and a signed lead.created", async () => {
    const token = await w.token(shop.widgetKey);
    const res = await post(contactPost, "contact", token, {
      name: "Ana",
      email: "ana@example.org",
      message: "Please call me about a party for 12.",
      consent: true,
    });
    expect(res.status).toBe(201);
    const { id } = (await res.json()) as { id: string };

    const mails = await smtp.waitFor(2);
    expect(mails.flatMap((m) => m.envelope.to).sort()).toEqual(["hello@shop.example", "owner@shop.test"]);
    for (const m of mails) {
      expect(m.subject).toBe("New contact request from Ana");
      expect(m.text).toContain("Please call me about a party for 12.");
      expect(m.text).toContain(`/admin/${shop.slug}/inbox`);
      expect(m.replyTo?.text).toBe("ana@example.org");
    }

    const [hook] = await receiver.waitFor(1);
    const event = verified(hook!);
    expect(event.type).toBe("lead.created");
    expect(event.data.lead).toMatchObject({ id, name: "Ana", email: "ana@example.org", kind: "lead" });
  });

  it("a rating: a signed feedback.created with the answer and the comment", async () => {
    const token = await w.token(shop.widgetKey);
    const chat = await chatPost(w.chatRequest(shop.widgetKey, { message: "hello" }, { token }), {
      params: Promise.resolve({ key: shop.widgetKey }),
    });
    const done = (await readEvents(chat)).find((e) => e.event === "done")!.data as { messageId: string };
    const res = await post(feedbackPost as typeof contactPost, "feedback", token, {
      messageId: done.messageId,
      rating: "down",
      comment: "Not what I asked",
    });
    expect(res.status).toBe(204);
    const hooks = await receiver.waitFor(2);
    const event = verified(hooks[1]!);
    expect(event).toMatchObject({
      type: "feedback.created",
      data: { feedback: { messageId: done.messageId, rating: "down", comment: "Not what I asked" } },
    });
  });
});
