import { sql } from "drizzle-orm";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { installTestDb } from "../support/admin-env";
import { actAs } from "../support/admin-mocks";
import { makeTenant, makeUser } from "../support/admin-world";
import type { TestDb } from "../support/db";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver";
import { startTestWebhookQueue } from "../support/webhooks";

// The Webhooks page's use cases and the conversation.finished sweep, against a real receiver.

vi.mock("@/lib/auth/claims", () => import("../support/admin-mocks").then((m) => m.claimsModule));
vi.mock("next/headers", () => import("../support/admin-mocks").then((m) => m.headersModule));
vi.mock("next/cache", () => import("../support/admin-mocks").then((m) => m.cacheModule));

const receiver: WebhookReceiver = await startWebhookReceiver();
process.env.MICHI_FETCH_ALLOW_HOSTS = receiver.host;

const { rowsOf } = await import("@/lib/db/client");
const endpoints = await import("@/lib/webhooks/endpoints");
const actions = await import("@/app/(admin)/admin/[tenant]/webhooks/actions");
const { pruneDeliveryLog, sweepQuietConversations } = await import("@/lib/webhooks/quiet");
const { installWebhookQueue } = await import("@/lib/webhooks/worker");
const { conversations, messages } = await import("@/lib/db/schema");
type Ctx = Parameters<typeof endpoints.createWebhookEndpoint>[0];

let t: TestDb;
let ctx: Ctx;
let owner: Awaited<ReturnType<typeof makeUser>>;
let queue: { stop(): Promise<void> };

const publicLookup = async () => [{ address: "93.184.216.34", family: 4 }];
const privateLookup = async () => [{ address: "10.0.0.7", family: 4 }];

beforeAll(async () => {
  t = await installTestDb();
  owner = await makeUser(t.handle, "owner@admin-hooks.test");
  const tenant = await makeTenant(t.handle, "admin-hooks", [[owner, "owner"]], {
    siteDomains: ["shop.example"],
  });
  ctx = {
    db: t.handle,
    tenant,
    role: "owner",
    user: { id: owner.id, email: owner.email, name: "", isOperator: false, mustChangePassword: false },
  } as Ctx;
  queue = await startTestWebhookQueue(t.handle, receiver);
}, 60_000);

afterAll(async () => {
  await queue?.stop();
  installWebhookQueue(null);
  await receiver.close();
  await t?.close();
});

describe("endpoint URLs follow the packs' policy without the site-domain rule", () => {
  const cases: [string, typeof publicLookup | undefined, RegExp | null][] = [
    ["https://hooks.zapier.com/hooks/catch/1/abc/", publicLookup, null],
    ["http://hooks.zapier.com/x", publicLookup, /https/],
    ["https://hooks.zapier.com:8443/x", publicLookup, /Ports/],
    ["https://127.0.0.1/x", publicLookup, /IP address/],
    ["https://intranet.corp/x", publicLookup, /public domain/],
    ["https://hook.example.org/x?token=1", publicLookup, /\?/],
    ["https://rebind.example.org/x", privateLookup, /private/],
  ];
  for (const [url, lookup, refused] of cases) {
    it(`${url} is ${refused ? "refused" : "accepted"}`, async () => {
      const r = await endpoints.checkWebhookUrl(url, { allowHosts: [], lookup });
      if (refused) expect(r).toMatchObject({ ok: false, message: expect.stringMatching(refused) });
      // Not on the business's site domains (shop.example), and still fine; the path is kept as typed.
      else expect(r).toEqual({ ok: true, url });
    });
  }
});

describe("the Webhooks forms", () => {
  const fd = (v: Record<string, string>) => {
    const f = new FormData();
    for (const [k, val] of Object.entries(v)) f.append(k, val);
    return f;
  };

  it("shows the policy's refusal next to the address and keeps what was typed", async () => {
    actAs(owner);
    const typed = { url: "https://127.0.0.1/hook", description: "CRM", events: "lead.created" };
    const state = await actions.createEndpointAction("admin-hooks", {}, fd(typed));
    expect(state).toEqual({
      ok: false,
      message: "Nothing was saved.",
      fieldErrors: { url: "Use a domain name, not an IP address" },
      values: typed,
    });
  });

  it("shows a new endpoint's signing secret once and clears the form", async () => {
    actAs(owner);
    const typed = { url: receiver.url("/form"), description: "Form", events: "lead.created" };
    const state = await actions.createEndpointAction("admin-hooks", {}, fd(typed));
    expect(state).toMatchObject({
      ok: true,
      message: "Endpoint added. Copy its signing secret now: it will not be shown again.",
      data: { secret: expect.stringMatching(/^whsec_/), endpointId: expect.any(String) },
      values: {},
    });
    const off = await actions.setEndpointEnabledAction(
      "admin-hooks",
      {},
      fd({ endpointId: state.data!.endpointId!, enabled: "false" }),
    );
    expect(off).toMatchObject({ ok: true, message: "Endpoint switched off." });
    const missing = await actions.rollSecretAction(
      "admin-hooks",
      {},
      fd({ endpointId: "00000000-0000-4000-8000-00000000abcd" }),
    );
    expect(missing).toMatchObject({ ok: false, message: "This endpoint or delivery does not exist." });
    await endpoints.deleteWebhookEndpoint(ctx, state.data!.endpointId!);
  });
});

describe("the Webhooks page's use cases", () => {
  it("shows the signing secret once and stores it sealed", async () => {
    const r = await endpoints.createWebhookEndpoint(
      ctx,
      { url: "https://hooks.zapier.com/hooks/catch/1/abc/", description: "Zapier", events: ["lead.created"] },
      { lookup: publicLookup },
    );
    const secret = r.secret;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const [row] = await rowsOf<{ secret: string }>(
      t.handle.platform,
      sql`select secret::text as secret from webhook_endpoints where id = ${r.endpointId}`,
    );
    expect(row!.secret).not.toContain(secret.slice(6));
    const rolled = await endpoints.rollWebhookSecret(ctx, r.endpointId);
    expect(rolled.secret).not.toBe(secret);
    const [audit] = await rowsOf<{ details: string }>(
      t.handle.platform,
      sql`select details::text as details from audit_log where action = 'webhook.endpoint_created'`,
    );
    expect(audit!.details).not.toContain(secret.slice(6));
    await endpoints.deleteWebhookEndpoint(ctx, r.endpointId);
  });

  it("redelivers a delivery with the same message id and a fresh valid signature", async () => {
    const created = await endpoints.createWebhookEndpoint(ctx, {
      url: receiver.url("/redeliver"),
      description: "",
      events: ["conversation.finished"],
    });
    const secret = created.secret;
    const tenantId = ctx.tenant.id;
    // A conversation that went quiet 10 minutes ago, with a quiet period of 5 minutes.
    const last = new Date(Date.now() - 10 * 60_000);
    const conversationId = await t.handle.forTenant(tenantId, async (tx) => {
      const [c] = await tx
        .insert(conversations)
        .values({
          tenantId,
          visitorId: "v1",
          startedAt: new Date(last.getTime() - 60_000),
          lastActivityAt: last,
        })
        .returning();
      await tx.insert(messages).values([
        { tenantId, conversationId: c!.id, role: "user", content: "Do you deliver?" },
        { tenantId, conversationId: c!.id, role: "assistant", content: "Yes." },
      ]);
      return c!.id;
    });
    // The endpoint existed before the conversation went quiet (one made afterwards gets no backlog:
    // webhooks-behave.test.ts).
    await t.handle.platform.execute(
      sql`update webhook_endpoints set created_at = now() - interval '1 hour' where id = ${created.endpointId}::uuid`,
    );
    const sweep = await sweepQuietConversations(t.handle, { quietMs: 5 * 60_000 });
    expect(sweep.published).toBe(1);
    // A second sweep (or another instance's) announces nothing twice.
    expect((await sweepQuietConversations(t.handle, { quietMs: 5 * 60_000 })).published).toBe(0);
    const [first] = await receiver.waitFor(1);
    const body = new Webhook(secret).verify(first!.body, first!.headers as Record<string, string>);
    expect(body).toMatchObject({
      type: "conversation.finished",
      data: {
        conversation: {
          id: conversationId,
          messageCount: 2,
          lastActivityAt: last.toISOString(),
          adminUrl: `http://localhost:3999/admin/admin-hooks/conversations/${conversationId}`,
        },
      },
    });

    const [d] = await rowsOf<{ id: string }>(t.handle.platform, sql`select id from webhook_deliveries`);
    await endpoints.redeliverWebhook(ctx, d!.id);
    const [, again] = await receiver.waitFor(2);
    expect(again!.headers["webhook-id"]).toBe(first!.headers["webhook-id"]);
    expect(again!.body).toBe(first!.body);
    expect(new Webhook(secret).verify(again!.body, again!.headers as Record<string, string>)).toEqual(body);

    // Switched off, it refuses to redeliver and says why.
    await endpoints.setWebhookEndpointEnabled(ctx, created.endpointId, false);
    await expect(endpoints.redeliverWebhook(ctx, d!.id)).rejects.toMatchObject({
      code: "conflict",
      message: expect.stringMatching(/Switch the endpoint on/),
    });

    // The log keeps 30 days of finished deliveries.
    await expect
      .poll(
        async () =>
          (await rowsOf<{ status: string }>(t.handle.platform, sql`select status from webhook_deliveries`))[0]
            ?.status,
      )
      .toBe("delivered");
    const day = 24 * 60 * 60 * 1000;
    expect(await pruneDeliveryLog(t.handle, new Date(Date.now() + 29 * day))).toBe(0);
    expect(await pruneDeliveryLog(t.handle, new Date(Date.now() + 31 * day))).toBe(1);
  }, 30_000);
});
