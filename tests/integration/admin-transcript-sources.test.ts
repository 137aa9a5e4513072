import { renderToStaticMarkup } from "react-dom/server";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { installTestDb } from "../support/admin-env";
import { actAs } from "../support/admin-mocks";
import { makeTenant, makeUser } from "../support/admin-world";
import type { TestDb } from "../support/db";

// The admin transcript lists under each answer the sources it cited, as the visitor saw them: only passages of
// that answer's own search_knowledge run, web pages as links opening in a new tab with their host, uploaded
// documents by name without a link, and never an address the model wrote in its text. An answer that cites
// nothing (whether or not it searched) has no list at all.

vi.mock("@/lib/auth/claims", () => import("../support/admin-mocks").then((m) => m.claimsModule));
vi.mock("next/headers", () => import("../support/admin-mocks").then((m) => m.headersModule));
vi.mock("next/cache", () => import("../support/admin-mocks").then((m) => m.cacheModule));

const { conversations, messages, toolRuns } = await import("@/lib/db/schema");
const { default: ConversationPage } = await import("@/app/(admin)/admin/[tenant]/conversations/[id]/page");

let t: TestDb;
let viewer: Awaited<ReturnType<typeof makeUser>>;
let conversationId: string;

const SEARCH_RESULT = JSON.stringify({
  found: true,
  passages: [
    { n: 1, title: "Returns and refunds", url: "https://shop.example/returns", text: "Within 30 days." },
    { n: 2, title: "Opening hours", url: "https://shop.example/hours", text: "Open at eight." },
    { n: 3, title: "Returns policy", document: "returns-policy.pdf", text: "Keep the receipt." },
  ],
});

beforeAll(async () => {
  t = await installTestDb();
  viewer = await makeUser(t.handle, "viewer@sources.test");
  const shop = await makeTenant(t.handle, "kn-sources", [[viewer, "viewer"]]);
  conversationId = await t.handle.forTenant(shop.id, async (tx) => {
    const [c] = await tx.insert(conversations).values({ tenantId: shop.id, visitorId: "v-1" }).returning();
    const at = (s: number) => new Date(Date.UTC(2026, 10, 3, 9, 0, s));
    const say = async (role: "user" | "assistant", content: string, s: number) =>
      (
        await tx
          .insert(messages)
          .values({ tenantId: shop.id, conversationId: c!.id, role, content, createdAt: at(s) })
          .returning()
      )[0]!;
    await say("user", "Can I return beans?", 0);
    const cited = await say(
      "assistant",
      "Yes, within 30 days [1], keep the receipt [3]. See also https://evil.example/phish.",
      2,
    );
    await tx.insert(toolRuns).values({
      tenantId: shop.id,
      conversationId: c!.id,
      messageId: cited.id,
      packId: "search_knowledge",
      callId: "call-1",
      args: { query: "return beans" },
      result: SEARCH_RESULT,
      resultChars: SEARCH_RESULT.length,
      resultTokens: 60,
      durationMs: 5,
      outcome: "ok",
      createdAt: at(1),
    });
    await say("user", "And on Sundays?", 3);
    // Its own search ran, but the answer cites none of it: no sources under it.
    const uncited = await say("assistant", "I could not find Sunday hours on your pages.", 5);
    await tx.insert(toolRuns).values({
      tenantId: shop.id,
      conversationId: c!.id,
      messageId: uncited.id,
      packId: "search_knowledge",
      callId: "call-2",
      args: { query: "sunday hours" },
      result: SEARCH_RESULT,
      resultChars: SEARCH_RESULT.length,
      resultTokens: 60,
      durationMs: 5,
      outcome: "ok",
      createdAt: at(4),
    });
    await say("user", "Thanks!", 6);
    // Cites [2] without a search of its own: the earlier answer's results are not its sources.
    await say("assistant", "You are welcome [2].", 7);
    return c!.id;
  });
}, 60_000);
afterAll(() => t?.close());

function sourceLists(html: string): string[] {
  return [...html.matchAll(/<ol[^>]*aria-label="Sources"[^>]*>([\s\S]*?)<\/ol>/g)].map((m) => m[1]!);
}

describe("the transcript's Sources", () => {
  it("lists the cited pages and documents of the answer's own search, nothing else", async () => {
    actAs(viewer);
    const html = renderToStaticMarkup(
      await ConversationPage({ params: Promise.resolve({ tenant: "kn-sources", id: conversationId }) }),
    );
    const lists = sourceLists(html);
    expect(lists).toHaveLength(1);
    const [items] = lists;
    const links = [...items!.matchAll(/<a ([^>]*)>([\s\S]*?)<\/a>/g)];
    expect(links).toHaveLength(1);
    expect(links[0]![1]).toContain('href="https://shop.example/returns"');
    expect(links[0]![1]).toContain('target="_blank"');
    expect(links[0]![1]).toContain('rel="noopener noreferrer"');
    expect(links[0]![2]).toBe("[1] Returns and refunds");
    expect(items).toContain("shop.example");
    // The document: its name, no link.
    expect(items).toContain("[3] returns-policy.pdf");
    expect(items).toContain("uploaded document");
    // Not cited, and the model's own address: neither is a source.
    expect(items).not.toContain("Opening hours");
    expect(items).not.toContain("evil.example");
  });
});
