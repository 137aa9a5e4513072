import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POST } from "@/app/api/widget/[key]/chat/route";
import { claimPages, replacePageChunks, updatePage } from "@/lib/db/queries/knowledge-pages";
import { saveWebsiteSource } from "@/lib/db/queries/knowledge-sources";
import { packConfigs } from "@/lib/db/schema";
import { type ChatWorld, readEvents, startChatWorld, textOf } from "../support/chat-world";

// A visitor writes Japanese to a business whose pages are English. The scripted model does what the pack's
// description asks: its first query in the pages' language, the visitor's own words second. The pages are
// searched with both, the English page comes back first and is cited; an answer that cites nothing shows no
// sources. The pages are our own text.

let w: ChatWorld;
let tenant: Awaited<ReturnType<ChatWorld["tenant"]>>;

const PAGES = [
  {
    url: "https://shop.example/parking",
    title: "Parking",
    text: "Parking is free behind the shop for two hours. The car park closes at 8 pm.",
  },
  {
    url: "https://shop.example/returns",
    title: "Returns",
    text: "Unopened items can be returned within 30 days with the receipt.",
  },
];

beforeAll(async () => {
  w = await startChatWorld();
  tenant = await w.tenant({ bot: { model: "fake-large", instructions: "" } });
  await w.db.forTenant(tenant.id, async (tx) => {
    await tx.insert(packConfigs).values({
      tenantId: tenant.id,
      packId: "search_knowledge",
      enabled: true,
      config: { siteUrl: "https://shop.example/", languages: ["en"] },
    });
    const source = await saveWebsiteSource(tx, tenant.id, {
      startUrl: "https://shop.example/",
      sitemapUrl: null,
      includePatterns: [],
      excludePatterns: [],
      pageCap: 50,
      schedule: "off",
      nextSyncAt: null,
    });
    const claimed = await claimPages(tx, {
      tenantId: tenant.id,
      sourceId: source.id,
      runId: "00000000-0000-4000-8000-000000000040",
      urls: PAGES.map((p) => ({ url: p.url, depth: 0 })),
      max: 10,
    });
    for (const page of claimed) {
      const p = PAGES.find((x) => x.url === page.url)!;
      await updatePage(tx, page.id, { status: "indexed", title: p.title, lang: "en" });
      await replacePageChunks(tx, { tenantId: tenant.id, sourceId: source.id, pageId: page.id }, [
        { ord: 0, headingPath: p.title, text: p.text, hash: `h-${p.url}`, lang: "en", words: p.text },
      ]);
    }
  });
  const queries = JSON.stringify({ queries: ["free parking", "駐車場は無料ですか"] });
  w.fake.setRules([
    {
      match: "駐車場",
      steps: [
        { type: "tool_calls", calls: [{ id: "call_kn", name: "search_knowledge", arguments: queries }] },
        { type: "text", text: "はい、店の裏に2時間無料で駐車できます [1]。" },
      ],
    },
    {
      match: "営業",
      steps: [
        { type: "tool_calls", calls: [{ id: "call_kn2", name: "search_knowledge", arguments: queries }] },
        { type: "text", text: "わかりません。担当者におつなぎしましょうか？" },
      ],
    },
  ]);
}, 60_000);

afterAll(async () => {
  await w?.close();
});

const ask = async (message: string) => {
  const token = await w.token(tenant.widgetKey);
  const res = await POST(w.chatRequest(tenant.widgetKey, { message, lang: "ja" }, { token }), {
    params: Promise.resolve({ key: tenant.widgetKey }),
  });
  return readEvents(res);
};

describe("the model's queries in the pages' language", () => {
  it("finds and cites the English page for a Japanese question", async () => {
    const events = await ask("駐車場は無料ですか？");
    const toolMsg = w.fake.requests.at(-1)!.body.messages.at(-1)!;
    const result = JSON.parse(String(toolMsg.content)) as {
      found: boolean;
      passages: { n: number; url: string; strength: string }[];
    };
    expect(result.found).toBe(true);
    expect(result.passages[0]).toMatchObject({
      n: 1,
      url: "https://shop.example/parking",
      strength: "strong",
    });
    expect(textOf(events)).toContain("[1]");
    expect(events.at(-1)!.data.citations).toEqual([
      { n: 1, title: "Parking", url: "https://shop.example/parking" },
    ]);
    // The description told the model which language to search in.
    const tools = JSON.stringify(w.fake.requests[0]!.body.tools);
    expect(tools).toMatch(/The pages are in English/);
  });

  it("an answer that cites nothing shows no sources", async () => {
    const events = await ask("営業時間は？");
    expect(events.at(-1)!.event).toBe("done");
    expect(events.at(-1)!.data.citations).toBeUndefined();
  });
});
