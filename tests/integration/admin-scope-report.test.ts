import { renderToStaticMarkup } from "react-dom/server";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { StoredFigureCheck } from "@/shared/figure-check";
import { installTestDb } from "../support/admin-env";
import { actAs } from "../support/admin-mocks";
import { makeTenant, makeUser } from "../support/admin-world";
import type { TestDb } from "../support/db";

// The scope report on Usage (issue 42): per week, the share of answers that cited sources or pack results,
// answered with neither, said they did not know, handed off, or stated an unsupported figure; each share links
// to the Conversations list filtered to exactly the conversations behind it.

vi.mock("@/lib/auth/claims", () => import("../support/admin-mocks").then((m) => m.claimsModule));
vi.mock("next/headers", () => import("../support/admin-mocks").then((m) => m.headersModule));
vi.mock("next/cache", () => import("../support/admin-mocks").then((m) => m.cacheModule));

const { conversations, messages, toolRuns } = await import("@/lib/db/schema");
const { listConversations } = await import("@/lib/db/queries/insights-list");
const { default: UsagePage } = await import("@/app/(admin)/admin/[tenant]/usage/page");

let t: TestDb;
let viewer: Awaited<ReturnType<typeof makeUser>>;
let tenantId: string;
const ids: Record<string, string> = {};
const UNSUPPORTED: StoredFigureCheck = {
  mode: "mark",
  unsupported: 1,
  figures: [{ text: "9 €", kind: "money", found: null }],
};

beforeAll(async () => {
  t = await installTestDb();
  viewer = await makeUser(t.handle, "viewer@scope.test");
  const shop = await makeTenant(t.handle, "scope-shop", [[viewer, "viewer"]]);
  tenantId = shop.id;
  await t.handle.forTenant(shop.id, async (tx) => {
    const answer = async (
      name: string,
      content: string,
      run?: { packId: string; result: string },
      figureCheck?: StoredFigureCheck,
    ) => {
      const [c] = await tx
        .insert(conversations)
        .values({ tenantId, visitorId: `v-${name}` })
        .returning();
      await tx.insert(messages).values({ tenantId, conversationId: c!.id, role: "user", content: "?" });
      const [m] = await tx
        .insert(messages)
        .values({
          tenantId,
          conversationId: c!.id,
          role: "assistant",
          content,
          figureCheck: figureCheck ?? null,
        })
        .returning();
      if (run)
        await tx.insert(toolRuns).values({
          tenantId,
          conversationId: c!.id,
          messageId: m!.id,
          packId: run.packId,
          callId: "c1",
          result: run.result,
          resultChars: run.result.length,
          durationMs: 5,
          outcome: "ok",
        });
      ids[name] = c!.id;
    };
    await answer("sourced", "Open 9–17 [1].", {
      packId: "search_knowledge",
      result: '{"found":true,"passages":[]}',
    });
    await answer("figure", "A cut is 9 €.", { packId: "get_menu", result: '{"items":[]}' }, UNSUPPORTED);
    await answer("unknown", "Sorry, I don’t know that.", {
      packId: "search_knowledge",
      result: '{"found":false}',
    });
    await answer("handoff", "I have asked a colleague.", { packId: "request_human", result: '{"ok":true}' });
  });
}, 60_000);
afterAll(() => t?.close());

describe("the scope report", () => {
  it("shows this week's shares, each linking to the conversations behind it", async () => {
    actAs(viewer);
    const html = renderToStaticMarkup(
      await UsagePage({
        params: Promise.resolve({ tenant: "scope-shop" }),
        searchParams: Promise.resolve({}),
      }),
    );
    expect(html).toContain("What answers rested on");
    expect(html).toMatch(
      /aria-label="2 of 4 answers in the week of [\d-]+: Cited sources or pack results" href="[^"]+">50%</,
    );
    expect(html).toMatch(/aria-label="1 of 4 answers in the week of [\d-]+: With neither" href="[^"]+">25%</);
    expect(html).toMatch(
      /aria-label="1 of 4 answers in the week of [\d-]+: Said it did not know" href="[^"]+">25%</,
    );
    expect(html).toMatch(
      /aria-label="1 of 4 answers in the week of [\d-]+: Handed off to a person" href="[^"]+">25%</,
    );
    expect(html).toMatch(
      /href="\/admin\/scope-shop\/conversations\?scope=figure&amp;from=[\d-]+&amp;to=[\d-]+"/,
    );
  });

  it("the Conversations list's scope filter finds exactly those conversations", async () => {
    const listed = async (scope: "sourced" | "neither" | "unknown" | "handoff" | "figure") =>
      (await t.handle.forTenant(tenantId, (tx) => listConversations(tx, tenantId, { scope }))).items
        .map((c) => c.id)
        .sort();
    expect(await listed("sourced")).toEqual([ids.sourced, ids.figure].sort());
    expect(await listed("neither")).toEqual([ids.unknown]);
    expect(await listed("unknown")).toEqual([ids.unknown]);
    expect(await listed("handoff")).toEqual([ids.handoff]);
    expect(await listed("figure")).toEqual([ids.figure]);
  });
});
