import { renderToStaticMarkup } from "react-dom/server";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { installTestDb, TEST_PUBLIC_URL } from "../support/admin-env";
import { actAs, outcome } from "../support/admin-mocks";
import { makeTenant, makeUser } from "../support/admin-world";
import type { TestDb } from "../support/db";

// The Visitor data page, its export route and its erase action, as the admin uses them: an owner finds a
// visitor by the e-mail of their contact request, downloads their data and erases it after typing the e-mail
// again; a viewer sees none of it, and neither the route nor the action does anything for them.

vi.mock("@/lib/auth/claims", () => import("../support/admin-mocks").then((m) => m.claimsModule));
vi.mock("next/headers", () => import("../support/admin-mocks").then((m) => m.headersModule));
vi.mock("next/cache", () => import("../support/admin-mocks").then((m) => m.cacheModule));

const { conversations, leads, messages } = await import("@/lib/db/schema");
const { default: VisitorDataPage } = await import("@/app/(admin)/admin/[tenant]/privacy/page");
const { GET: exportGet } = await import("@/app/api/admin/[tenant]/privacy/export/route");
const { eraseVisitorAction } = await import("@/app/(admin)/admin/[tenant]/privacy/actions");

const EMAIL = "Kim@Example.org";
let t: TestDb;
let owner: Awaited<ReturnType<typeof makeUser>>;
let viewer: Awaited<ReturnType<typeof makeUser>>;
let shop: Awaited<ReturnType<typeof makeTenant>>;

beforeAll(async () => {
  t = await installTestDb();
  owner = await makeUser(t.handle, "owner@privacy.test");
  viewer = await makeUser(t.handle, "viewer@privacy.test");
  shop = await makeTenant(t.handle, "privacy-shop", [
    [owner, "owner"],
    [viewer, "viewer"],
  ]);
  await t.handle.forTenant(shop.id, async (tx) => {
    const [c] = await tx
      .insert(conversations)
      .values({ tenantId: shop.id, visitorId: "visitor-kim-0001" })
      .returning();
    await tx
      .insert(messages)
      .values({ tenantId: shop.id, conversationId: c!.id, role: "user", content: "Hi <b>there</b>" });
    await tx
      .insert(leads)
      .values({ tenantId: shop.id, conversationId: c!.id, email: EMAIL.toLowerCase(), name: "Kim" });
  });
});
afterAll(() => t?.close());

const page = async (search: Record<string, string>) =>
  renderToStaticMarkup(
    (await VisitorDataPage({
      params: Promise.resolve({ tenant: shop.slug }),
      searchParams: Promise.resolve(search),
    })) as React.ReactElement,
  );
const exportAs = (query: string) =>
  exportGet(new Request(`${TEST_PUBLIC_URL}/api/admin/${shop.slug}/privacy/export${query}`), {
    params: Promise.resolve({ tenant: shop.slug }),
  });
const form = (fields: Record<string, string>) => {
  const fd = new FormData();
  for (const [k, v] of Object.entries(fields)) fd.set(k, v);
  return fd;
};
const stored = () => t.handle.forTenant(shop.id, (tx) => tx.select().from(messages));

describe("a viewer", () => {
  it("sees no search, cannot download and cannot erase", async () => {
    actAs(viewer);
    const html = await page({ by: "email", value: EMAIL });
    expect(html).toContain("Only an admin or owner");
    expect(html).not.toContain("What is stored");
    expect((await exportAs(`?by=email&value=${encodeURIComponent(EMAIL)}`)).status).toBe(403);
    const r = await eraseVisitorAction(shop.slug, {}, form({ by: "email", value: EMAIL, confirm: EMAIL }));
    expect(r.ok).toBe(false);
    expect(await stored()).toHaveLength(1);
  });
});

describe("an owner", () => {
  it("finds the visitor by e-mail, whatever its case, and sees what is stored", async () => {
    actAs(owner);
    const html = await page({ by: "email", value: EMAIL });
    expect(html).toContain("What is stored");
    expect(html).toMatch(/Contact requests<\/th><td[^>]*>1</);
    expect(html).toContain("Erase this visitor");
    expect(await page({ by: "email", value: "nobody@example.org" })).toContain(
      "Nothing is stored about this visitor.",
    );
    expect(await page({ by: "phone", value: "abc" })).toContain("Enter a phone number.");
  });

  it("downloads the data as JSON and as a page", async () => {
    actAs(owner);
    const json = await exportAs(`?by=email&value=${encodeURIComponent(EMAIL)}&format=json`);
    expect(json.status).toBe(200);
    expect(json.headers.get("content-disposition")).toContain("attachment");
    const body = (await json.json()) as { tables: Record<string, Record<string, unknown>[]> };
    expect(body.tables.messages?.[0]?.content).toBe("Hi <b>there</b>");
    expect(body.tables.leads?.[0]?.name).toBe("Kim");
    const html = await (await exportAs(`?by=email&value=${encodeURIComponent(EMAIL)}&format=html`)).text();
    expect(html).toContain("Hi &lt;b&gt;there&lt;/b&gt;");
    expect((await exportAs("?by=email&value=nobody%40example.org")).status).toBe(404);
  });

  it("erases only after typing the handle again, then the page finds nothing", async () => {
    actAs(owner);
    const wrong = await eraseVisitorAction(
      shop.slug,
      {},
      form({ by: "email", value: EMAIL, confirm: "kim@" }),
    );
    expect(wrong).toMatchObject({ ok: false, fieldErrors: { confirm: expect.any(String) } });
    expect(await stored()).toHaveLength(1);
    const done = await outcome(() =>
      eraseVisitorAction(shop.slug, {}, form({ by: "email", value: EMAIL, confirm: EMAIL.toLowerCase() })),
    );
    expect(done).toEqual({ kind: "redirect", url: `/admin/${shop.slug}/privacy?erased=3` });
    expect(await stored()).toHaveLength(0);
    expect(await page({ erased: "3" })).toContain("Erased 3 records");
    expect(await page({ by: "email", value: EMAIL })).toContain("Nothing is stored about this visitor.");
  });
});
