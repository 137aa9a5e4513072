import { eq } from "drizzle-orm";
import { renderToStaticMarkup } from "react-dom/server";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { usageMonth } from "@/lib/db/queries/usage";
import { packConfigs, tenants, usageMonthly } from "@/lib/db/schema";
import { installTestDb } from "../support/admin-env";
import { actAs } from "../support/admin-mocks";
import { makeTenant, makeUser } from "../support/admin-world";
import type { TestDb } from "../support/db";

vi.mock("@/lib/auth/claims", () => import("../support/admin-mocks").then((m) => m.claimsModule));
vi.mock("next/headers", () => import("../support/admin-mocks").then((m) => m.headersModule));
vi.mock("next/cache", () => import("../support/admin-mocks").then((m) => m.cacheModule));

// Issue 45 item 1: the Overview says what a visitor actually gets. A pack switched on with nothing to answer
// from, a pack whose last test failed, a budget used up: none of them is "set up", and switching on an empty
// pack says what is missing instead.

process.env.OPENAI_BASE_URL = "http://model.test/v1";
process.env.MICHI_MODELS = "fake-small";

let t: TestDb;
let owner: Awaited<ReturnType<typeof makeUser>>;
let shop: { id: string };
beforeAll(async () => {
  t = await installTestDb();
  owner = await makeUser(t.handle, "owner@ready.test");
  shop = await makeTenant(t.handle, "shop-r", [[owner, "owner"]], { siteDomains: ["shop-r.example"] });
  await t.handle.platform.update(tenants).set({ widgetSeenAt: new Date() }).where(eq(tenants.id, shop.id));
});
afterAll(async () => {
  for (const k of ["OPENAI_BASE_URL", "MICHI_MODELS"]) delete process.env[k];
  await t?.close();
});

async function overview(): Promise<string> {
  actAs(owner);
  const { default: OverviewPage } = await import("@/app/(admin)/admin/[tenant]/page");
  const html = renderToStaticMarkup(await OverviewPage({ params: Promise.resolve({ tenant: "shop-r" }) }));
  return html
    .replace(/<[^>]+>/g, " ")
    .replace(/&#x27;/g, "'")
    .replace(/\s+/g, " ");
}

async function setPack(packId: string, values: Partial<typeof packConfigs.$inferInsert>) {
  await t.handle.platform.delete(packConfigs).where(eq(packConfigs.packId, packId));
  await t.handle.platform.insert(packConfigs).values({ tenantId: shop.id, packId, config: {}, ...values });
}

describe("the Overview and packs that cannot answer", () => {
  it("with a pack that has facts, everything is set up and the visitor gets its answers", async () => {
    await setPack("get_business_info", { enabled: true, config: { phone: "+1 555 0100" } });
    const text = await overview();
    expect(text).toContain("Everything is set up.");
    expect(text).toContain("Your tools answer (done)");
    expect(text).toContain("The assistant answers from its instructions and Business details.");
  });

  it("business details and opening hours switched on empty are not done, and the visitor gets no facts", async () => {
    await setPack("get_business_info", { enabled: true, config: {} });
    await setPack("get_opening_status", { enabled: true, config: { weeklyHours: [], timeZone: "UTC" } });
    const text = await overview();
    expect(text).not.toContain("Everything is set up");
    expect(text).toContain("Your tools answer (to do)");
    expect(text).toContain(
      "Business details is on but has nothing to answer from: fill in at least one of address, phone, e-mail, opening hours or policies.",
    );
    expect(text).toContain("Opening hours is on but has nothing to answer from: fill in your weekly hours");
    expect(text).toContain("The assistant answers from its instructions only");
    expect(text).toContain("Questions for Business details, Opening hours get no facts");
  });

  it("a pack whose last test failed is not done until it works again", async () => {
    await setPack("get_opening_status", { enabled: false });
    await setPack("get_business_info", {
      enabled: true,
      config: { phone: "+1 555 0100" },
      lastTestOutcome: "error",
      lastTestAt: new Date(),
    });
    const text = await overview();
    expect(text).toContain("Your tools answer (to do)");
    expect(text).toMatch(/Business details failed its last test \(/);
    expect(text).not.toContain("Everything is set up");
  });

  it("a budget used up is not done, and the Overview says visitors get no answers", async () => {
    await setPack("get_business_info", { enabled: true, config: { phone: "+1 555 0100" } });
    await t.handle.platform.update(tenants).set({ monthlyTokenBudget: 1000 }).where(eq(tenants.id, shop.id));
    await t.handle.platform
      .insert(usageMonthly)
      .values({ tenantId: shop.id, month: usageMonth(), promptTokens: 900, completionTokens: 200 });
    const text = await overview();
    expect(text).toContain("This month's token budget has room (to do)");
    expect(text).toContain("Visitors get no answers right now.");
    expect(text).toContain("The widget tells visitors that the assistant is unavailable");
    expect(text).not.toContain("Everything is set up");
  });
});

describe("switching on a pack with nothing to answer from", () => {
  it("is refused from the list and from the form, naming what to fill in", async () => {
    const { togglePackAction, savePackAction } = await import("@/app/(admin)/admin/[tenant]/tools/actions");
    await setPack("get_business_info", { enabled: false, config: {} });
    actAs(owner);
    const form = (o: Record<string, string>) => {
      const fd = new FormData();
      for (const [k, v] of Object.entries(o)) fd.set(k, v);
      return fd;
    };
    const toggled = await togglePackAction(
      "shop-r",
      {},
      form({ packId: "get_business_info", enabled: "true" }),
    );
    expect(toggled).toMatchObject({
      ok: false,
      message:
        "Business details has nothing to answer from yet: fill in at least one of address, phone, e-mail, opening hours or policies before switching it on.",
    });
    const saved = await savePackAction("shop-r", {}, form({ packId: "get_business_info", enabled: "on" }));
    expect(saved).toMatchObject({
      ok: false,
      message: expect.stringMatching(/^Business details has nothing/),
    });
    const [row] = await t.handle.platform
      .select()
      .from(packConfigs)
      .where(eq(packConfigs.packId, "get_business_info"));
    expect(row?.enabled).toBe(false);
  });
});
