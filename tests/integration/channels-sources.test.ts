import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { platformPacks } from "@/lib/chat/packs";
import type { ToolPack } from "@/lib/tools/contract";
import type { EnabledPack } from "@/lib/tools/runtime";
import { textUpdate } from "../fixtures/channels/telegram/updates";
import { textMessage } from "../fixtures/channels/whatsapp/webhooks";
import { type ChannelWorld, eventually, startChannelWorld } from "../support/channel-world";
import { textOf } from "../support/whatsapp-world";

// An answer's sources as the person reads them on WhatsApp and Telegram: the pages the answer cites as [n]
// listed at its end with their links (an uploaded document by its name, no link), the markers turned into
// "(n)"; an answer that cites nothing arrives with neither sources nor markers. The fake Graph API and Bot API
// accept only what the real ones accept (Telegram's HTML parser, both 4,096-character limits).

// What the search returned for the turn, as the real pack shapes it (src/lib/tools/packs/search-knowledge.ts):
// two web pages and an uploaded document.
const searchPack: ToolPack = {
  id: "search_knowledge",
  label: "Searching our website",
  definition: {
    type: "function",
    function: {
      name: "search_knowledge",
      description: "The business's pages (test)",
      parameters: { type: "object", properties: { queries: { type: "array", items: { type: "string" } } } },
    },
  },
  configFields: [],
  run: async () => ({
    found: true,
    passages: [
      { n: 1, title: "Returns & refunds", url: "https://shop.example/returns?lang=en&x=1", text: "30 days." },
      { n: 2, title: "Opening hours", url: "https://shop.example/hours", text: "Open at nine." },
      { n: 3, title: "Returns policy", document: "returns-policy.pdf", text: "Keep the receipt." },
    ],
  }),
};
const enabled: EnabledPack[] = [{ pack: searchPack, config: {}, definition: searchPack.definition }];

const search = {
  type: "tool_calls" as const,
  calls: [{ id: "s1", name: "search_knowledge", arguments: "{}" }],
};
const CITED = "Returns are free within 30 days [1]. Keep the receipt [3]. We open at nine [7].";
const LONG = `${"A sentence of the long answer about returns. ".repeat(120)}Returns take 30 days [1, 3].`;

let c: ChannelWorld;
let seq = 0;

beforeAll(async () => {
  c = await startChannelWorld({
    packs: { ...platformPacks, loadEnabled: async () => enabled },
    bot: { language: "en" },
  });
  c.w.fake.setRules([
    { match: "return", steps: [search, { type: "text", text: CITED }] },
    // Searched, but the answer cites no passage.
    { match: "hours", steps: [search, { type: "text", text: "We open at nine every day." }] },
    // Markers without a search of the turn's own: nothing to cite.
    { match: "parking", steps: [{ type: "text", text: "Park behind the shop [1]." }] },
    { match: "long", steps: [search, { type: "text", text: LONG }] },
    { match: "", steps: [{ type: "text", text: "Hello." }] },
  ]);
});
afterAll(() => c?.close());
beforeEach(() => {
  c.graph.sent.length = 0;
  c.telegram.sent.length = 0;
});

/** `until`: the parts of a split answer are sent one by one, so wait for the one that ends it. */
async function askWhatsApp(text: string, until?: RegExp): Promise<string[]> {
  seq++;
  const from = `1555077${String(seq).padStart(4, "0")}`;
  const id = `wamid.SOURCES${seq}${Math.random().toString(36).slice(2, 8)}`;
  await c.post(textMessage(text, { id, from, timestamp: Math.floor(Date.now() / 1000) }));
  const sent = await eventually(async () => {
    const s = c.graph.sent.filter((m) => m.to === from);
    expect(s.length).toBeGreaterThan(0);
    if (until) expect(s.some((m) => until.test(textOf(m) ?? ""))).toBe(true);
    return s;
  });
  return sent.map((s) => textOf(s) ?? "");
}

async function askTelegram(text: string, parts = 1): Promise<string[]> {
  seq++;
  const chatId = 5_550_770_000 + seq;
  await c.postTelegram(
    textUpdate(text, { updateId: 770_000 + seq * 10, chatId, date: Math.floor(Date.now() / 1000) }),
  );
  const sent = await eventually(async () => {
    const s = c.telegram.sent.filter((m) => String(m.chatId) === String(chatId));
    expect(s.length).toBeGreaterThanOrEqual(parts);
    return s;
  });
  return sent.map((s) => s.html);
}

const MARKER = /\[\d/;

describe("WhatsApp", () => {
  // WhatsApp shows no link text: the client itself makes a link of a URL in a text body, previews only when
  // preview_url is true (we send false), at most 4,096 characters; *bold* is its own syntax
  // (https://developers.facebook.com/documentation/business-messaging/whatsapp/messages/text-messages/,
  // https://faq.whatsapp.com/539178204879377).
  it("lists the cited sources at the end, markers as (n), a document by name without a link", async () => {
    const [body, ...more] = await askWhatsApp("Can I return my order?");
    expect(more).toHaveLength(0);
    expect(body).toBe(
      [
        "Returns are free within 30 days (1). Keep the receipt (3). We open at nine.",
        "",
        "*Sources*",
        "(1) Returns & refunds (https://shop.example/returns?lang=en&x=1)",
        "(3) returns-policy.pdf",
      ].join("\n"),
    );
  });

  it("an answer citing nothing shows no sources and no markers", async () => {
    expect(await askWhatsApp("What are your hours?")).toEqual(["We open at nine every day."]);
    expect(await askWhatsApp("Where is parking?")).toEqual(["Park behind the shop."]);
  });

  it("a long cited answer is split under 4,096 characters, the sources whole at its end", async () => {
    const bodies = await askWhatsApp("a long question", /\*Sources\*/);
    expect(bodies.length).toBeGreaterThan(1);
    expect(bodies.every((b) => b.length <= 4096)).toBe(true);
    expect(bodies.join("\n").match(MARKER)).toBeNull();
    expect(bodies.at(-1)).toMatch(
      /Returns take 30 days \(1, 3\)\.\n\n\*Sources\*\n\(1\) Returns & refunds \(https:\/\/shop\.example\/returns\?lang=en&x=1\)\n\(3\) returns-policy\.pdf$/,
    );
  });
});

describe("Telegram", () => {
  // parse_mode HTML: <b> and <a href="…"> are Telegram's tags, and <, > and & in text (and " in an attribute)
  // must be written as entities, or the Bot API refuses the whole message
  // (https://core.telegram.org/bots/api#html-style; the fake's parser is as strict).
  it("lists the cited sources as links at the end, markers as (n), a document by name", async () => {
    const [html, ...more] = await askTelegram("Can I return my order?");
    expect(more).toHaveLength(0);
    expect(html).toBe(
      [
        "Returns are free within 30 days (1). Keep the receipt (3). We open at nine.",
        "",
        "<b>Sources</b>",
        '(1) <a href="https://shop.example/returns?lang=en&amp;x=1">Returns &amp; refunds</a>',
        "(3) returns-policy.pdf",
      ].join("\n"),
    );
  });

  it("an answer citing nothing shows no sources and no markers", async () => {
    expect(await askTelegram("What are your hours?")).toEqual(["We open at nine every day."]);
    expect(await askTelegram("Where is parking?")).toEqual(["Park behind the shop."]);
  });

  it("a long cited answer is split under 4,096 characters, the sources whole at its end", async () => {
    const parts = await askTelegram("a long question", 2);
    expect(parts.every((p) => p.length <= 4096)).toBe(true);
    expect(parts.join("\n").match(MARKER)).toBeNull();
    expect(parts.at(-1)).toMatch(
      /Returns take 30 days \(1, 3\)\.\n\n<b>Sources<\/b>\n\(1\) <a href="https:\/\/shop\.example\/returns\?lang=en&amp;x=1">Returns &amp; refunds<\/a>\n\(3\) returns-policy\.pdf$/,
    );
  });
});

describe("the outbox", () => {
  it("stores the answer once, as written, with its sources; the channel formats it when sending", async () => {
    await askTelegram("Can I return this?");
    const rows = (await c.rows()).outbound.filter((o) => o.reply?.markdown === CITED);
    expect(rows.length).toBeGreaterThan(0);
    expect(rows[0]!.reply!.sources).toEqual({
      label: "Sources",
      list: [
        { n: 1, title: "Returns & refunds", url: "https://shop.example/returns?lang=en&x=1" },
        { n: 3, title: "returns-policy.pdf" },
      ],
    });
  });
});
