import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TenantContext } from "@/lib/auth/access";
import { connectWhatsApp } from "@/lib/channels/connect";
import { listChannels } from "@/lib/channels/view";
import { getConnectionByChannel } from "@/lib/db/queries/channels";
import { channelConnections, channelInbound, conversations } from "@/lib/db/schema";
import { signature, textMessage } from "../fixtures/channels/whatsapp/webhooks";
import { makeUser } from "../support/admin-world";
import {
  APP_SECRET,
  type ChannelWorld,
  eventually,
  startChannelWorld,
  VERIFY_TOKEN,
} from "../support/channel-world";
import { PLATFORM } from "../support/chat-world";

// Two businesses with WhatsApp: a webhook for one can never write into the other's conversations, whatever
// the body says, and the channel secrets never reach a page's data or the model.

const B_SECRET = "b-app-secret-fedcba9876543210fedcba";
let c: ChannelWorld;
let b: { tenant: Awaited<ReturnType<ChannelWorld["w"]["tenant"]>>; key: string; ctx: TenantContext };

beforeAll(async () => {
  c = await startChannelWorld();
  c.w.fake.setRules([{ match: "", steps: [{ type: "text", text: "Hello." }] }]);
  const tenant = await c.w.tenant();
  const owner = await makeUser(c.w.db, `owner-${tenant.slug}@example.com`);
  const ctx: TenantContext = {
    user: {
      id: owner.id,
      email: owner.email,
      name: owner.name,
      isOperator: false,
      mustChangePassword: false,
    },
    tenant,
    role: "owner",
    db: c.w.db,
  };
  // Meta knows B's number with B's token: saving checks them with the (fake) Graph API.
  c.graph.addNumber("209999999999999", "b-access-token");
  await connectWhatsApp(
    ctx,
    {
      phoneNumberId: "209999999999999",
      accessToken: "b-access-token",
      appSecret: B_SECRET,
      verifyToken: "b-verify",
    },
    { graphBaseUrl: c.graph.baseUrl },
  );
  const conn = await c.w.db.forTenant(tenant.id, (tx) => getConnectionByChannel(tx, "whatsapp"));
  b = { tenant, key: conn!.key, ctx };
});
afterAll(() => c?.close());

const bRows = () =>
  c.w.db.forTenant(b.tenant.id, async (tx) => ({
    conversations: await tx.select().from(conversations),
    inbound: await tx.select().from(channelInbound),
  }));

async function postTo(key: string, json: unknown, secret: string) {
  const { POST } = await import("@/app/api/channels/[channel]/[key]/route");
  const raw = new TextEncoder().encode(JSON.stringify(json));
  const headers = new Headers({ "x-hub-signature-256": await signature(raw, secret) });
  return POST(
    new Request(`${PLATFORM}/api/channels/whatsapp/${key}`, { method: "POST", headers, body: raw }),
    {
      params: Promise.resolve({ channel: "whatsapp", key }),
    },
  );
}

const now = () => Math.floor(Date.now() / 1000);

describe("a webhook for one business", () => {
  it("signed with A's app secret is refused at B's key, and B stores nothing", async () => {
    const res = await postTo(b.key, textMessage("hello", { id: "wamid.X-1", timestamp: now() }), APP_SECRET);
    expect(res.status).toBe(401);
    expect(await bRows()).toEqual({ conversations: [], inbound: [] });
  });

  it("naming B's phone number id in its body still writes only into A, and only for A's own number", async () => {
    const res = await c.post(
      textMessage("hello", { id: "wamid.X-2", timestamp: now(), phoneNumberId: "209999999999999" }),
    );
    expect(res.status).toBe(200);
    const own = await c.post(
      textMessage("hello", { id: "wamid.X-3", from: "15550777777", timestamp: now() }),
    );
    expect(own.status).toBe(200);
    await eventually(async () => expect(c.graph.sent.filter((s) => s.to === "15550777777")).toHaveLength(1));
    const a = await c.rows();
    expect(a.inbound.map((i) => i.externalId)).toEqual(["wamid.X-3"]);
    expect(await bRows()).toEqual({ conversations: [], inbound: [] });
  });
});

describe("channel secrets", () => {
  it("never reach the page's data or the model", async () => {
    const view = JSON.stringify(await listChannels(c.ctx));
    const [conn] = await c.w.db.forTenant(c.tenant.id, (tx) => tx.select().from(channelConnections));
    for (const secret of [APP_SECRET, VERIFY_TOKEN, c.graph.accessToken, c.telegram.token]) {
      expect(view).not.toContain(secret);
      expect(JSON.stringify(conn)).not.toContain(secret);
      expect(JSON.stringify(c.w.fake.requests)).not.toContain(secret);
    }
    expect(c.w.fake.requests.length).toBeGreaterThan(0);
    expect(JSON.parse(view).channels[0].secretsSet).toEqual(["accessToken", "appSecret", "verifyToken"]);
  });
});

describe("the log", () => {
  it("carries no channel secret, through a delivery, a bad signature and a failing send", async () => {
    const { createLogger } = await import("@/lib/log");
    const lines: string[] = [];
    const g = globalThis as { __michiLog?: unknown };
    const saved = g.__michiLog;
    g.__michiLog = createLogger({ write: (l: string) => void lines.push(l) }, "debug");
    try {
      c.graph.failNext("expired-token", 1);
      await c.post(textMessage("hello log", { id: "wamid.LOG-1", from: "15550888888", timestamp: now() }));
      await c.post(textMessage("hello log", { id: "wamid.LOG-2", timestamp: now() }), { secret: "wrong" });
      await eventually(async () =>
        expect((await c.rows()).outbound.some((o) => o.errorCode === "190")).toBe(true),
      );
    } finally {
      g.__michiLog = saved;
    }
    const text = lines.join("\n");
    expect(text).toContain("channel webhook refused");
    expect(text).toContain("channel reply could not be sent");
    for (const secret of [APP_SECRET, VERIFY_TOKEN, c.graph.accessToken, c.telegram.token, B_SECRET]) {
      expect(text).not.toContain(secret);
    }
  });
});

describe("the operator's switch", () => {
  it("switched off, a signed message is acknowledged but nothing is stored or answered", async () => {
    const { setChannelsPlatformEnabled } = await import("@/lib/channels/connect");
    const operator = await makeUser(c.w.db, "operator-switch@example.com", { isOperator: true });
    const op = { user: { ...operator, isOperator: true, mustChangePassword: false }, db: c.w.db };
    await setChannelsPlatformEnabled(op, false);
    try {
      const before = (await c.rows()).inbound.length;
      const res = await c.post(textMessage("hello while off", { id: "wamid.OFF-1", timestamp: now() }));
      expect(res.status).toBe(200);
      expect((await c.rows()).inbound).toHaveLength(before);
      expect((await listChannels(c.ctx)).platformOn).toBe(false);
    } finally {
      await setChannelsPlatformEnabled(op, true);
    }
  });
});

describe("retention", () => {
  it("deletes a person's phone number with their conversation", async () => {
    const { purgeExpiredConversations } = await import("@/lib/retention");
    const before = await c.rows();
    expect(before.contacts.map((k) => k.address)).toContain("15550777777");
    // Every conversation here is older than the 90 days' retention a year from now.
    await purgeExpiredConversations(c.w.db, { now: new Date(Date.now() + 365 * 86_400_000) });
    const after = await c.rows();
    expect(after.conversations).toEqual([]);
    expect(after.contacts).toEqual([]);
    expect(after.outbound).toEqual([]);
    // What stays of an answered message is the provider's id (to recognise retries), no number, no text.
    expect(after.inbound.every((i) => i.address === null && i.body === null)).toBe(true);
  });
});
