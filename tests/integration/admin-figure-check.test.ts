import { renderToStaticMarkup } from "react-dom/server";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { StoredFigureCheck } from "@/shared/figure-check";
import { installTestDb } from "../support/admin-env";
import { actAs } from "../support/admin-mocks";
import { makeTenant, makeUser } from "../support/admin-world";
import type { TestDb } from "../support/db";

// The figure check's verdict as the owner reads it: under each answer in the transcript, which figure was
// found where and which was not (and, when held, what the model had written), and on the Usage page the
// count of answers with a figure no source stated.

vi.mock("@/lib/auth/claims", () => import("../support/admin-mocks").then((m) => m.claimsModule));
vi.mock("next/headers", () => import("../support/admin-mocks").then((m) => m.headersModule));
vi.mock("next/cache", () => import("../support/admin-mocks").then((m) => m.cacheModule));

const { conversations, messages } = await import("@/lib/db/schema");
const { default: ConversationPage } = await import("@/app/(admin)/admin/[tenant]/conversations/[id]/page");
const { default: UsagePage } = await import("@/app/(admin)/admin/[tenant]/usage/page");

let t: TestDb;
let viewer: Awaited<ReturnType<typeof makeUser>>;
let conversationId: string;

const HELD: StoredFigureCheck = {
  mode: "hold",
  unsupported: 1,
  figures: [
    { text: "€14.50", kind: "money", found: null },
    { text: "9 am", kind: "time", found: "passage [1] Opening hours" },
  ],
  held: "The burger is €14.50 and we open at 9 am.",
};
const FINE: StoredFigureCheck = {
  mode: "hold",
  unsupported: 0,
  figures: [{ text: "12,50 €", kind: "money", found: "instructions" }],
};

beforeAll(async () => {
  t = await installTestDb();
  viewer = await makeUser(t.handle, "viewer@figures.test");
  const shop = await makeTenant(t.handle, "fig-shop", [[viewer, "viewer"]]);
  conversationId = await t.handle.forTenant(shop.id, async (tx) => {
    const [c] = await tx.insert(conversations).values({ tenantId: shop.id, visitorId: "v-1" }).returning();
    const say = (role: "user" | "assistant", content: string, s: number, figureCheck?: StoredFigureCheck) =>
      tx.insert(messages).values({
        tenantId: shop.id,
        conversationId: c!.id,
        role,
        content,
        figureCheck: figureCheck ?? null,
        createdAt: new Date(Date.now() - 60_000 + s * 1000),
      });
    await say("user", "How much is the burger?", 0);
    await say("assistant", "I'd rather not give you a figure I can't confirm.", 1, HELD);
    await say("user", "And the menu of the day?", 2);
    await say("assistant", "It is 12,50 €.", 3, FINE);
    return c!.id;
  });
}, 60_000);
afterAll(() => t?.close());

describe("the figure check in the admin", () => {
  it("the transcript says under each answer which figure was found where, and what a held answer said", async () => {
    actAs(viewer);
    const html = renderToStaticMarkup(
      await ConversationPage({ params: Promise.resolve({ tenant: "fig-shop", id: conversationId }) }),
    );
    expect(html).toContain("1 of 2 not found in this answer&#x27;s sources (answer held)");
    expect(html).toMatch(
      /<code>€14\.50<\/code> <span class="muted">\(price\)<\/span>:\s*<span[^>]*>not found<\/span>/,
    );
    expect(html).toContain("found in your website: [1] Opening hours");
    expect(html).toContain("The burger is €14.50 and we open at 9 am.");
    expect(html).toContain("all 1 found in this answer&#x27;s sources");
    expect(html).toContain("found in your bot&#x27;s instructions");
  });

  it("Usage counts the answers with a figure no source stated", async () => {
    actAs(viewer);
    const html = renderToStaticMarkup(
      await UsagePage({ params: Promise.resolve({ tenant: "fig-shop" }), searchParams: Promise.resolve({}) }),
    );
    expect(html).toContain("Figures in answers");
    expect(html).toMatch(/>1<\/strong> answer with a figure not found in its sources/);
    expect(html).toContain("Of 2 answers stating a figure");
  });
});
