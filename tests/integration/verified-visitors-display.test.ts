import { SignJWT } from "jose";
import { renderToStaticMarkup } from "react-dom/server";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { actAs } from "../support/admin-mocks";
import { makeUser } from "../support/admin-world";
import { type ChatWorld, readEvents, startChatWorld } from "../support/chat-world";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver";
import { startTestWebhookQueue } from "../support/webhooks";

// Issue 41 item 4: once the host page vouches for a visitor (a signed identity token), the people of the
// business see who it is: a "Verified" label with the name and e-mail in the Conversations list, the
// transcript and the live console, and a `visitor` field in webhooks about the conversation. An anonymous
// visitor's conversation shows none of that.

vi.mock("@/lib/auth/claims", () => import("../support/admin-mocks").then((m) => m.claimsModule));
vi.mock("next/headers", () => import("../support/admin-mocks").then((m) => m.headersModule));
vi.mock("next/cache", () => import("../support/admin-mocks").then((m) => m.cacheModule));

const { addMembership } = await import("@/lib/db/queries/users");
const { rotateVisitorIdentitySecret } = await import("@/lib/embed/visitor-identity");
const { createWebhookEndpoint } = await import("@/lib/webhooks/endpoints");
const { sweepQuietConversations } = await import("@/lib/webhooks/quiet");
const { installWebhookQueue } = await import("@/lib/webhooks/worker");
const { loadLiveConsole } = await import("@/lib/live/console");
const { LiveConversation } = await import("@/app/(admin)/admin/[tenant]/inbox/live/LiveConversation");
const { default: ListPage } = await import("@/app/(admin)/admin/[tenant]/conversations/page");
const { default: TranscriptPage } = await import("@/app/(admin)/admin/[tenant]/conversations/[id]/page");

type Ctx = Parameters<typeof rotateVisitorIdentitySecret>[0];

let w: ChatWorld;
let receiver: WebhookReceiver;
let queue: { stop(): Promise<void> };

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  // The test receiver listens on localhost, which the URL policy allows only when listed.
  w = await startChatWorld({ MICHI_FETCH_ALLOW_HOSTS: receiver.host });
  queue = await startTestWebhookQueue(w.db, receiver);
}, 60_000);
afterAll(async () => {
  await queue?.stop();
  installWebhookQueue(null);
  await receiver?.close();
  await w?.close();
});

const NAME = "Ana Pérez";
const EMAIL = "ana@example.com";

/** A business with an identity secret and a conversation.finished endpoint; one verified and one anonymous turn. */
async function world() {
  const tenant = await w.tenant();
  const user = await makeUser(w.db, `owner-${tenant.slug}@display.test`);
  await addMembership(w.db.platform, tenant.id, user.id, "owner");
  const ctx = {
    db: w.db,
    tenant,
    role: "owner",
    user: { id: user.id, email: user.email, name: "", isOperator: false, mustChangePassword: false },
  } as Ctx;
  const { secret } = await rotateVisitorIdentitySecret(ctx);
  await createWebhookEndpoint(ctx as never, {
    url: receiver.url(`/hook-${tenant.slug}`),
    description: "",
    events: ["conversation.finished"],
  });
  const jwt = await new SignJWT({ sub: "cust-42", email: EMAIL, name: NAME })
    .setProtectedHeader({ alg: "HS256" })
    .setExpirationTime(Math.floor(Date.now() / 1000) + 3600)
    .sign(new TextEncoder().encode(secret));
  w.fake.setRules([{ match: "question", steps: [{ type: "text", text: "An answer" }] }]);
  const turn = async (identity?: string) => {
    const req = w.chatRequest(
      tenant.widgetKey,
      { message: "a question" },
      { token: await w.token(tenant.widgetKey) },
    );
    if (identity) req.headers.set("x-michi-identity", identity);
    const { POST } = await import("@/app/api/widget/[key]/chat/route");
    const events = await readEvents(await POST(req, { params: Promise.resolve({ key: tenant.widgetKey }) }));
    return events[0]!.data.conversationId as string;
  };
  const verified = await turn(jwt);
  const anonymous = await turn();
  return { tenant, user, ctx, verified, anonymous };
}

describe("the verified visitor is shown to the business", () => {
  it("in the Conversations list, the transcript, the live console and the conversation.finished webhook", async () => {
    const { tenant, user, ctx, verified, anonymous } = await world();
    actAs(user);

    const list = renderToStaticMarkup(
      await ListPage({ params: Promise.resolve({ tenant: tenant.slug }), searchParams: Promise.resolve({}) }),
    );
    const labels = [...list.matchAll(/data-verified-visitor[^>]*>([\s\S]*?)<\/span><\/span>/g)].map(
      (m) => m[1]!,
    );
    expect(labels).toHaveLength(1);
    expect(labels[0]).toContain("Verified");
    expect(labels[0]).toContain(NAME);
    expect(labels[0]).toContain(EMAIL);

    const page = async (id: string) =>
      renderToStaticMarkup(await TranscriptPage({ params: Promise.resolve({ tenant: tenant.slug, id }) }));
    const shown = await page(verified);
    expect(shown).toContain("data-verified-visitor");
    expect(shown).toContain(NAME);
    expect(shown).toContain(EMAIL);
    const plain = await page(anonymous);
    expect(plain).not.toContain("data-verified-visitor");
    expect(plain).not.toContain(EMAIL);

    // The live console's open conversation, as its page renders it from the console's read (the page's
    // router-bound watcher needs a browser, so the conversation pane is rendered on its own, as a viewer sees it).
    const liveView = async (c: string) => {
      const data = await loadLiveConsole(ctx, c);
      return renderToStaticMarkup(
        LiveConversation({
          data: { ...data, transcript: data.transcript! },
          tenantSlug: tenant.slug,
          timeZone: "UTC",
          userId: user.id,
          actions: null,
        }),
      );
    };
    const open = await liveView(verified);
    expect(open).toContain("data-verified-visitor");
    expect(open).toContain(NAME);
    expect(open).toContain(EMAIL);
    expect(await liveView(anonymous)).not.toContain("data-verified-visitor");
    const live = await loadLiveConsole(ctx, verified);
    expect(live.transcript?.conversation.verifiedVisitor).toEqual({
      id: "cust-42",
      email: EMAIL,
      name: NAME,
    });
    const liveAnon = await loadLiveConsole(ctx, anonymous);
    expect(liveAnon.transcript?.conversation.verifiedVisitor ?? null).toBeNull();

    const later = new Date(Date.now() + 60_000);
    expect((await sweepQuietConversations(w.db, { quietMs: 1000, now: later })).published).toBe(2);
    const hooks = (await receiver.waitFor(2)).filter((h) => h.path === `/hook-${tenant.slug}`);
    const data = hooks.map((h) => (JSON.parse(h.body) as { data: Record<string, unknown> }).data);
    const byId = (id: string) => data.find((d) => (d.conversation as { id: string }).id === id)!;
    expect(byId(verified).visitor).toEqual({ id: "cust-42", email: EMAIL, name: NAME, verified: true });
    expect(byId(anonymous)).not.toHaveProperty("visitor");
  });
});
