import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { installTestDb } from "../support/admin-env";
import { actAs } from "../support/admin-mocks";
import { makeTenant, makeUser } from "../support/admin-world";
import type { TestDb } from "../support/db";
import { liveCount, readLive, readyCount } from "../support/live";

vi.mock("@/lib/auth/claims", () => import("../support/admin-mocks").then((m) => m.claimsModule));
vi.mock("next/headers", () => import("../support/admin-mocks").then((m) => m.headersModule));
vi.mock("next/cache", () => import("../support/admin-mocks").then((m) => m.cacheModule));

// The console's live stream through its route and the admin guard: a viewer may watch, a stranger gets 404,
// the answer is an uncompressed, uncached event stream, and Last-Event-ID resumes it.

const { GET } = await import("@/app/api/admin/[tenant]/live/events/route");
const { appendLiveEvent } = await import("@/lib/db/queries/live-events");
const { conversations } = await import("@/lib/db/schema");
const { closeLiveWakes, wakeLive } = await import("@/lib/live/bus");

let t: TestDb;
let shop: Awaited<ReturnType<typeof makeTenant>>;
let viewer: Awaited<ReturnType<typeof makeUser>>;
let stranger: Awaited<ReturnType<typeof makeUser>>;
let conversationId: string;

beforeAll(async () => {
  t = await installTestDb();
  viewer = await makeUser(t.handle, "viewer@live.test");
  stranger = await makeUser(t.handle, "owner@elsewhere.test");
  shop = await makeTenant(t.handle, "live-shop", [[viewer, "viewer"]]);
  await makeTenant(t.handle, "elsewhere", [[stranger, "owner"]]);
  const [c] = await t.handle.platform
    .insert(conversations)
    .values({ tenantId: shop.id, visitorId: "visitor-live-console-0001" })
    .returning();
  conversationId = c!.id;
});
afterAll(async () => {
  await closeLiveWakes();
  await t?.close();
});

const open = (headers: Record<string, string> = {}, query = "") =>
  GET(new Request(`http://localhost/api/admin/live-shop/live/events${query}`, { headers }), {
    params: Promise.resolve({ tenant: "live-shop" }),
  });

async function note(text: string) {
  const seq = await t.handle.forTenant(shop.id, (tx) =>
    appendLiveEvent(tx, {
      conversationId,
      kind: "note",
      data: { text, author: { id: viewer.id, name: "V" } },
    }),
  );
  wakeLive(shop.id, conversationId);
  return seq;
}

describe("the console's live stream route", () => {
  it("lets a viewer watch, from now on, and resumes after Last-Event-ID", async () => {
    const old = await note("before the console opened");
    actAs(viewer);
    const res = await open();
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
    expect(res.headers.get("cache-control")).toBe("no-store, no-transform");
    const s = readLive(res);
    await s.until((m) => readyCount(m) === 1);
    await note("after");
    await s.until((m) => liveCount(m) === 1);
    expect(s.seen()).toEqual(["note:after"]);
    await s.close();

    const again = readLive(await open({ "last-event-id": String(old - 1) }));
    await again.until((m) => readyCount(m) === 1);
    expect(again.seen()).toEqual(["note:before the console opened", "note:after"]);
    await again.close();
  });

  it("is not found for a member of another business, and asks a signed-out caller to sign in", async () => {
    actAs(stranger);
    expect((await open()).status).toBe(404);
    actAs(null);
    expect((await open()).status).toBe(401);
  });
});
