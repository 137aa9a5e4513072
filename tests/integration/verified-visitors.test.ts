import { eq } from "drizzle-orm";
import { SignJWT } from "jose";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { platformPacks } from "@/lib/chat/packs";
import { conversations, tenants } from "@/lib/db/schema";
import {
  removeVisitorIdentitySecret,
  rotateVisitorIdentitySecret,
  setVisitorIdentityRequired,
  visitorIdentityStatus,
} from "@/lib/embed/visitor-identity";
import { env } from "@/lib/env";
import type { ToolContext, ToolPack } from "@/lib/tools/contract";
import { type EnabledPack, runToolCall } from "@/lib/tools/runtime";
import { handleChat, handleSession } from "@/widget/server/chat";
import type { WidgetDeps } from "@/widget/server/deps";
import { makeUser } from "../support/admin-world";
import {
  type ChatWorld,
  errorOf,
  PLATFORM,
  readEvents,
  SITE,
  startChatWorld,
  textOf,
} from "../support/chat-world";

// Verified visitors (issue 41, item 4): the host page's server signs a JWT with the business's identity
// secret, the widget sends it with every request, and the platform checks it each time. Refusals are coded
// (identity_invalid / identity_expired, worded by the panel); never a silent anonymous visitor.

let w: ChatWorld;
type Tenant = typeof tenants.$inferSelect;
type Ctx = Parameters<typeof rotateVisitorIdentitySecret>[0];

beforeAll(async () => {
  w = await startChatWorld();
});
afterAll(() => w?.close());
beforeEach(() => w.fake.reset());

async function ownerOf(tenant: Tenant, role: "owner" | "admin" | "viewer" = "owner"): Promise<Ctx> {
  const user = await makeUser(w.db, `${role}-${Math.random().toString(36).slice(2)}@verified.test`);
  return {
    db: w.db,
    tenant,
    role,
    user: { id: user.id, email: user.email, name: "", isOperator: false, mustChangePassword: false },
  } as Ctx;
}

const nowSec = () => Math.floor(Date.now() / 1000);

function sign(secret: string | Uint8Array, claims: Record<string, unknown>, exp = nowSec() + 3600) {
  const key = typeof secret === "string" ? new TextEncoder().encode(secret) : secret;
  return new SignJWT(claims).setProtectedHeader({ alg: "HS256" }).setExpirationTime(exp).sign(key);
}

/** The packs of a test turn: one anyone may use, one that acts for a known person (records its context). */
const seen: (ToolContext["visitor"] | "none")[] = [];
const hours: ToolPack = pack("opening_hours_test", false);
const orders: ToolPack = pack("my_orders", true);
function pack(id: string, needsVerifiedVisitor: boolean): ToolPack {
  return {
    id,
    label: `Running ${id}`,
    needsVerifiedVisitor,
    definition: {
      type: "function",
      function: { name: id, description: `${id} (test)`, parameters: { type: "object", properties: {} } },
    },
    configFields: [],
    async run(_c, _a, ctx) {
      seen.push(ctx.visitor ?? "none");
      return { ok: true, for: ctx.visitor?.name ?? "nobody" };
    },
  };
}
function deps(): WidgetDeps {
  const enabled: EnabledPack[] = [hours, orders].map((p) => ({
    pack: p,
    config: {},
    definition: p.definition,
  }));
  return { db: async () => w.db, env, packs: { ...platformPacks, loadEnabled: async () => enabled } };
}

async function session(tenant: Tenant, identity?: string) {
  const headers = new Headers({ origin: SITE });
  if (identity) headers.set("x-michi-identity", identity);
  const req = new Request(`${PLATFORM}/api/widget/${tenant.widgetKey}/session`, { method: "POST", headers });
  return handleSession(req, tenant.widgetKey, deps());
}

async function chat(tenant: Tenant, token: string, body: Record<string, unknown>, identity?: string) {
  const req = w.chatRequest(tenant.widgetKey, body, { token });
  if (identity) req.headers.set("x-michi-identity", identity);
  return handleChat(req, tenant.widgetKey, deps());
}

async function history(tenant: Tenant, token: string, id: string, identity?: string) {
  const { GET } = await import("@/app/api/widget/[key]/conversations/[id]/route");
  const headers = new Headers({ origin: SITE, authorization: `Bearer ${token}` });
  if (identity) headers.set("x-michi-identity", identity);
  const req = new Request(`${PLATFORM}/api/widget/${tenant.widgetKey}/conversations/${id}?lang=en`, {
    headers,
  });
  return GET(req, { params: Promise.resolve({ key: tenant.widgetKey, id }) });
}

/** A business with an identity secret, made through the owner's use case. */
async function business() {
  const tenant = await w.tenant();
  const owner = await ownerOf(tenant);
  const { secret } = await rotateVisitorIdentitySecret(owner);
  return { tenant, owner, secret };
}

const toolNames = (i: number) =>
  ((w.fake.requests[i]?.body.tools ?? []) as { function: { name: string } }[]).map((t) => t.function.name);

describe("a token the platform cannot trust is refused in words, never taken as anonymous", () => {
  it("forged, expired, another business's secret, a rotated-away secret and a 25-hour token are each refused", async () => {
    const { tenant, owner, secret } = await business();
    const other = await business();
    const before = await sign(secret, { sub: "ana" });
    const { secret: current } = await rotateVisitorIdentitySecret(owner);
    expect(current).not.toBe(secret);
    const cases: [string, string, string][] = [
      ["forged", await sign(crypto.getRandomValues(new Uint8Array(32)), { sub: "ana" }), "identity_invalid"],
      ["expired", await sign(current, { sub: "ana" }, nowSec() - 120), "identity_expired"],
      ["another business's secret", await sign(other.secret, { sub: "ana" }), "identity_invalid"],
      ["signed before the rotation", before, "identity_invalid"],
      [
        "exp more than 24 h ahead",
        await sign(current, { sub: "ana" }, nowSec() + 25 * 3600),
        "identity_invalid",
      ],
      ["no sub", await sign(current, { name: "Ana" }), "identity_invalid"],
      ["not a JWT", "not-a-token", "identity_invalid"],
    ];
    const token = await w.token(tenant.widgetKey);
    for (const [what, jwt, code] of cases) {
      const s = await session(tenant, jwt);
      expect(s.status, what).toBe(403);
      expect((await errorOf(s)).code, what).toBe(code);
      const c = await chat(tenant, token, { message: `hello ${what}` }, jwt);
      expect(c.status, what).toBe(403);
      expect((await errorOf(c)).code, what).toBe(code);
    }
    // Nothing was stored and the model was never asked: the visitor was not downgraded to anonymous.
    expect(w.fake.requests).toHaveLength(0);
    expect((await w.rows(tenant.id)).messages).toHaveLength(0);
  });

  it("a token is refused once the business removes its secret; a minute of clock skew is tolerated", async () => {
    const { tenant, owner, secret } = await business();
    const token = await w.token(tenant.widgetKey);
    const skewed = await sign(secret, { sub: "ana" }, nowSec() - 30);
    expect((await session(tenant, skewed)).status).toBe(200);
    await removeVisitorIdentitySecret(owner);
    const res = await session(tenant, await sign(secret, { sub: "ana" }));
    expect((await errorOf(res)).code).toBe("identity_invalid");
    w.fake.setRules([{ match: "hi", steps: [{ type: "text", text: "Hello" }] }]);
    expect((await chat(tenant, token, { message: "hi" }, skewed)).status).toBe(403);
  });
});

describe("packs and the verified visitor", () => {
  it("a pack that needs a verified visitor is never offered to an anonymous one, and gets context.visitor when verified", async () => {
    const { tenant, secret } = await business();
    seen.length = 0;
    const token = await w.token(tenant.widgetKey);
    w.fake.setRules([{ match: "anonymous", steps: [{ type: "text", text: "Hi stranger" }] }]);
    const anon = await chat(tenant, token, { message: "anonymous question" });
    expect(textOf(await readEvents(anon))).toBe("Hi stranger");
    expect(toolNames(0)).toEqual(["opening_hours_test"]);

    const jwt = await sign(secret, { sub: "cust-42", email: "ana@example.com", name: "Ana Pérez" });
    w.fake.setRules([
      {
        match: "where is my order",
        steps: [
          { type: "tool_calls", calls: [{ id: "c1", name: "my_orders", arguments: "{}" }] },
          { type: "text", text: "Tool said: {{tool}}" },
        ],
      },
    ]);
    const verified = await chat(tenant, token, { message: "where is my order" }, jwt);
    expect(textOf(await readEvents(verified))).toContain("Ana Pérez");
    expect(toolNames(1)).toEqual(["opening_hours_test", "my_orders"]);
    expect(seen).toEqual([{ id: "cust-42", email: "ana@example.com", name: "Ana Pérez" }]);
  });

  it("the business may switch the requirement off: the pack is offered to everyone, without a visitor", async () => {
    const { tenant, owner } = await business();
    await setVisitorIdentityRequired(owner, false);
    const token = await w.token(tenant.widgetKey);
    w.fake.setRules([{ match: "anyone", steps: [{ type: "text", text: "ok" }] }]);
    await readEvents(await chat(tenant, token, { message: "anyone there" }));
    expect(toolNames(0)).toEqual(["opening_hours_test", "my_orders"]);
  });

  it("the run wrapper refuses such a pack without a verified visitor, whatever list it is handed", async () => {
    seen.length = 0;
    const record = await runToolCall({
      call: { id: "x", name: "my_orders", arguments: "{}" },
      enabled: [{ pack: orders, config: {}, definition: orders.definition }],
      ctx: {
        tenantId: crypto.randomUUID(),
        conversationId: null,
        signal: new AbortController().signal,
        log: console as never,
      },
      timeoutMs: 1000,
      maxChars: 1000,
    });
    expect(record.outcome).toBe("error");
    expect(record.result).toContain("verified_visitor_required");
    expect(seen).toEqual([]);
  });
});

describe("one verified visitor, one history across devices", () => {
  it("a second device with the same sub opens and continues the same conversation", async () => {
    const { tenant, secret } = await business();
    const jwt = await sign(secret, { sub: "cust-7", name: "Kenji", email: "kenji@example.com" });
    // Device A: its own visitor token, chats as the verified visitor.
    const tokenA = await w.token(tenant.widgetKey);
    w.fake.setRules([{ match: "first", steps: [{ type: "text", text: "First answer" }] }]);
    const a = await readEvents(await chat(tenant, tokenA, { message: "first question" }, jwt));
    const conversationId = a[0]!.data.conversationId as string;

    // Device B: a new session (another visitor token) with a freshly signed token for the same sub.
    const jwtB = await sign(secret, { sub: "cust-7", name: "Kenji" });
    const s = await session(tenant, jwtB);
    expect(s.status).toBe(200);
    const body = (await s.json()) as { token: string; conversationId: string; verified: boolean };
    expect(body).toMatchObject({ verified: true, conversationId });
    const read = await history(tenant, body.token, conversationId, jwtB);
    expect(read.status).toBe(200);
    const msgs = ((await read.json()) as { messages: { content: string }[] }).messages.map((m) => m.content);
    expect(msgs).toEqual(["first question", "First answer"]);
    w.fake.setRules([{ match: "second", steps: [{ type: "text", text: "Second answer" }] }]);
    const b = await readEvents(
      await chat(tenant, body.token, { conversationId, message: "second question" }, jwtB),
    );
    expect(textOf(b)).toBe("Second answer");

    // Without the token, device B's own visitor token does not reach that conversation.
    expect((await history(tenant, body.token, conversationId)).status).toBe(404);
    // Another sub does not either.
    const eve = await sign(secret, { sub: "cust-8" });
    expect((await history(tenant, body.token, conversationId, eve)).status).toBe(404);

    const [row] = await w.db.forTenant(tenant.id, (tx) =>
      tx.select().from(conversations).where(eq(conversations.id, conversationId)),
    );
    expect(row!.verifiedVisitor).toEqual({ id: "cust-7", name: "Kenji" });
  });
});

describe("the identity secret", () => {
  it("is shown once: not in the status the admin page reads, nor in anything the widget sends", async () => {
    const { tenant, owner, secret } = await business();
    const status = await visitorIdentityStatus(owner);
    expect(JSON.stringify(status)).not.toContain(secret);
    expect(status).toEqual({ secretSetAt: expect.any(String), required: true });
    const jwt = await sign(secret, { sub: "ana" });
    const s = await session(tenant, jwt);
    const text = await s.text();
    const { token } = JSON.parse(text) as { token: string };
    w.fake.setRules([{ match: "secret", steps: [{ type: "text", text: "none here" }] }]);
    const sse = await (await chat(tenant, token, { message: "say the secret" }, jwt)).text();
    const { GET: panel } = await import("@/app/w/[key]/route");
    const html = await (
      await panel(new Request(`${PLATFORM}/w/${tenant.widgetKey}?p=${encodeURIComponent(SITE)}`), {
        params: Promise.resolve({ key: tenant.widgetKey }),
      })
    ).text();
    const [own] = await w.db.forTenant(tenant.id, (tx) =>
      tx.select({ sealed: tenants.visitorIdentitySecret }).from(tenants).where(eq(tenants.id, tenant.id)),
    );
    const sealed = own?.sealed;
    for (const out of [text, sse, html, JSON.stringify(w.fake.requests)]) {
      expect(out).not.toContain(secret);
      if (sealed) expect(out).not.toContain(sealed.ct);
    }
  });

  it("only owners make, replace or remove it and flip the switch; each change is audited", async () => {
    const tenant = await w.tenant();
    for (const role of ["admin", "viewer"] as const) {
      const ctx = await ownerOf(tenant, role);
      await expect(rotateVisitorIdentitySecret(ctx)).rejects.toMatchObject({ code: "forbidden" });
      await expect(setVisitorIdentityRequired(ctx, false)).rejects.toMatchObject({ code: "forbidden" });
      await expect(removeVisitorIdentitySecret(ctx)).rejects.toMatchObject({ code: "forbidden" });
    }
    const owner = await ownerOf(tenant);
    await rotateVisitorIdentitySecret(owner);
    await rotateVisitorIdentitySecret(owner);
    await setVisitorIdentityRequired(owner, false);
    await removeVisitorIdentitySecret(owner);
    const { auditLog } = await import("@/lib/db/schema");
    const actions = await w.db.forTenant(tenant.id, (tx) =>
      tx.select({ action: auditLog.action }).from(auditLog).orderBy(auditLog.createdAt),
    );
    expect(actions.map((a) => a.action)).toEqual([
      "visitor_identity.secret_created",
      "visitor_identity.secret_rotated",
      "visitor_identity.required_changed",
      "visitor_identity.secret_removed",
    ]);
  });
});
