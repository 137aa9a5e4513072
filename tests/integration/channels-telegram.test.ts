import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { listChannels } from "@/lib/channels/view";
import { platformPacks } from "@/lib/chat/packs";
import { addCuratedAnswer } from "@/lib/knowledge/answers";
import { configSchema } from "@/lib/tools/config";
import type { ToolPack } from "@/lib/tools/contract";
import { findPack } from "@/lib/tools/index";
import { definitionFor, type EnabledPack } from "@/lib/tools/runtime";
import {
  callbackUpdate,
  editedUpdate,
  groupTextUpdate,
  photoUpdate,
  textUpdate,
} from "../fixtures/channels/telegram/updates";
import { type ChannelWorld, eventually, PUBLIC_URL, startChannelWorld } from "../support/channel-world";

// Telegram end to end: the connection registered its webhook at the fake Bot API with a secret_token; updates
// (fixtures from the Bot API reference, tests/fixtures/channels/telegram) come back with it in
// X-Telegram-Bot-Api-Secret-Token, are answered by the chat turn and sent as Telegram HTML.

let c: ChannelWorld;
let seq = 0;
const fresh = () => {
  seq++;
  return { updateId: 900_000 + seq * 10, chatId: 5_550_300_000 + seq, date: Math.floor(Date.now() / 1000) };
};

const info: ToolPack = {
  id: "get_business_info",
  label: "Checking our details",
  definition: {
    type: "function",
    function: {
      name: "get_business_info",
      description: "Opening hours (test)",
      parameters: { type: "object", properties: { topic: { type: "string" } }, required: ["topic"] },
    },
  },
  configFields: [],
  run: async () => ({ answer: "9 to 5" }),
};
// The real search_knowledge pack: it reaches the business's index only through the searcher the channel's
// wiring hands it in its run context (src/lib/channels/runtime.ts, channelPacks).
const search = findPack("search_knowledge")!;
const searchConfig = configSchema(search).parse({ siteUrl: "https://shop.example", languages: ["en"] });
const enabled: EnabledPack[] = [
  { pack: info, config: {}, definition: info.definition },
  { pack: search, config: searchConfig, definition: definitionFor(search, searchConfig) },
];

beforeAll(async () => {
  c = await startChannelWorld({ packs: { ...platformPacks, loadEnabled: async () => enabled } });
  c.w.fake.setRules([
    { match: "menu", steps: [{ type: "text", text: "Try the **ramen** & <gyoza>." }] },
    {
      match: "long",
      steps: [{ type: "text", text: `${"A sentence of the long answer. ".repeat(200)}The end.` }],
    },
    {
      match: "hours",
      steps: [
        {
          type: "tool_calls",
          calls: [{ id: "t1", name: "get_business_info", arguments: '{"topic":"hours"}' }],
        },
        { type: "text", text: "From {{tool.answer}}." },
      ],
    },
    {
      match: "dog",
      steps: [
        {
          type: "tool_calls",
          calls: [{ id: "k1", name: "search_knowledge", arguments: '{"query":"Can I bring my dog?"}' }],
        },
        { type: "text", text: "{{tool.answer_from_business.answer}}" },
      ],
    },
    { match: "", steps: [{ type: "text", text: "Hello." }] },
  ]);
});
afterAll(() => c?.close());
beforeEach(() => {
  c.telegram.sent.length = 0;
});

const sentTo = (chatId: number) => c.telegram.sent.filter((s) => String(s.chatId) === String(chatId));

describe("connecting", () => {
  it("registered the webhook at Telegram with the connection's URL and a secret_token", () => {
    expect(c.telegram.webhook?.url).toMatch(
      new RegExp(`^${PUBLIC_URL}/api/channels/telegram/[A-Za-z0-9_-]{43}$`),
    );
    expect(c.telegram.webhook?.secretToken).toMatch(/^[A-Za-z0-9_-]{20,256}$/);
  });

  it("the Channels page names the bot and where each webhook URL goes, in each adapter's words", async () => {
    const page = (await listChannels(c.ctx)).channels.map((v) => [v.title, v.status, v.webhookLabel]);
    expect(page).toEqual([
      ["WhatsApp", "Connected.", "Callback URL to paste at Meta (Webhooks)"],
      // getMe's username (the fake Bot API's, as connectTelegram stored it).
      ["Telegram", "Connected as @michi_test_bot.", "Webhook URL (registered at Telegram for you)"],
    ]);
  });
});

describe("an update", () => {
  it("is answered in Telegram HTML, with Markdown and HTML characters escaped", async () => {
    const p = fresh();
    expect((await c.postTelegram(textUpdate("what is on the menu?", p))).status).toBe(200);
    const [sent] = await eventually(async () => {
      const s = sentTo(p.chatId);
      expect(s).toHaveLength(1);
      return s;
    });
    expect(sent!.html).toBe("Try the <b>ramen</b> &amp; &lt;gyoza&gt;.");
    const rows = await c.rows();
    const contact = rows.contacts.find((k) => k.address === String(p.chatId))!;
    expect(rows.conversations.find((x) => x.id === contact.conversationId)?.channel).toBe("telegram");
  });

  it("without the secret token, or with a wrong one, is 401 and nothing is stored", async () => {
    const before = (await c.rows()).inbound.length;
    for (const secret of [null, "not-the-secret"]) {
      expect((await c.postTelegram(textUpdate("hello", fresh()), { secret })).status).toBe(401);
    }
    expect((await c.rows()).inbound).toHaveLength(before);
  });

  it("delivered twice (same update_id) is answered once", async () => {
    const p = fresh();
    for (let i = 0; i < 3; i++) await c.postTelegram(textUpdate("hello twice", p));
    await eventually(async () => expect(sentTo(p.chatId)).toHaveLength(1));
    const rows = await c.rows();
    const conv = rows.contacts.find((k) => k.address === String(p.chatId))!.conversationId;
    expect(rows.messages.filter((m) => m.conversationId === conv && m.role === "user")).toHaveLength(1);
  });

  it("a photo is answered politely; an edit and a group message are not answered", async () => {
    const p = fresh();
    await c.postTelegram(photoUpdate("look", p));
    await eventually(async () => expect(sentTo(p.chatId)).toHaveLength(1));
    expect(sentTo(p.chatId)[0]!.html).toContain("only read text");
    const before = (await c.rows()).inbound.length;
    await c.postTelegram(editedUpdate("changed my mind", { ...p, updateId: p.updateId + 1 }));
    await c.postTelegram(groupTextUpdate("hello group", { ...p, updateId: p.updateId + 2 }));
    expect((await c.rows()).inbound).toHaveLength(before);
  });

  it("a button tap is answered and its spinner stopped", async () => {
    const p = fresh();
    await c.postTelegram(callbackUpdate("menu please", p));
    await eventually(async () => expect(sentTo(p.chatId)).toHaveLength(1));
    expect(c.telegram.answeredCallbacks.length).toBeGreaterThan(0);
  });

  it("a long answer is split under 4,096 characters", async () => {
    const p = fresh();
    await c.postTelegram(textUpdate("a long one", p));
    const sent = await eventually(async () => {
      const s = sentTo(p.chatId);
      expect(s.length).toBeGreaterThan(1);
      return s;
    });
    expect(sent.every((s) => s.html.length <= 4096)).toBe(true);
    expect(sent.at(-1)!.html.endsWith("The end.")).toBe(true);
  });

  it("a tool call shows Telegram's typing action while it runs", async () => {
    const p = fresh();
    await c.postTelegram(textUpdate("your hours?", p));
    await eventually(async () => expect(sentTo(p.chatId)).toHaveLength(1));
    expect(sentTo(p.chatId)[0]!.html).toBe("From 9 to 5.");
    expect(c.telegram.actions).toContainEqual({ chatId: String(p.chatId), action: "typing" });
  });

  it("a question the business answered itself gets that answer, found by the channel's own searcher", async () => {
    await addCuratedAnswer(c.ctx, {
      questions: ["Can I bring my dog?"],
      answer: "Dogs are welcome on the terrace.",
      lang: "en",
    });
    const u = fresh();
    expect((await c.postTelegram(textUpdate("Is my dog allowed?", u))).status).toBe(200);
    await eventually(async () =>
      expect(sentTo(u.chatId).map((m) => m.html)).toEqual(["Dogs are welcome on the terrace."]),
    );
  });

  it("a 429 is retried after Telegram's retry_after", async () => {
    const p = fresh();
    c.telegram.failNext("sendMessage", { kind: "flood", retryAfter: 1 }, 1);
    await c.postTelegram(textUpdate("hello flood", p));
    await eventually(async () => expect(sentTo(p.chatId)).toHaveLength(1), 30_000);
  });
});

describe("disconnecting", () => {
  it("removes the connection and tells Telegram to stop; the old webhook address no longer works", async () => {
    const { disconnectChannel } = await import("@/lib/channels/connect");
    const url = c.telegram.webhook!.url;
    await disconnectChannel(c.ctx, "telegram", { telegramBaseUrl: c.telegram.baseUrl });
    expect(c.telegram.requests.map((r) => r.apiMethod)).toContain("deleteWebhook");
    const { POST } = await import("@/app/api/channels/[channel]/[key]/route");
    const key = new URL(url).pathname.split("/").at(-1)!;
    const res = await POST(
      new Request(url, { method: "POST", body: JSON.stringify(textUpdate("hi", fresh())) }),
      {
        params: Promise.resolve({ channel: "telegram", key }),
      },
    );
    expect(res.status).toBe(404);
  });
});
