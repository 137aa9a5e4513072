import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { platformPacks } from "@/lib/chat/packs";
import type { ToolPack } from "@/lib/tools/contract";
import type { EnabledPack } from "@/lib/tools/runtime";
import { heldAnswer } from "@/shared/figure-check";
import { textUpdate } from "../fixtures/channels/telegram/updates";
import { textMessage } from "../fixtures/channels/whatsapp/webhooks";
import { type ChannelWorld, eventually, startChannelWorld } from "../support/channel-world";
import { textOf } from "../support/whatsapp-world";

// WhatsApp and Telegram receive an answer whole, so hold mode checks it before anything is sent: a price none
// of the turn's sources states never leaves, the honest sentence does; a price the pack states is sent as the
// model wrote it. The fake Graph API and Bot API accept only what the real ones accept.

const menu: ToolPack = {
  id: "menu",
  label: "Reading the menu",
  definition: {
    type: "function",
    function: {
      name: "menu",
      description: "The menu (test)",
      parameters: { type: "object", properties: {} },
    },
  },
  configFields: [],
  run: async () => ({ items: [{ name: "Burger", price: "12,50 €" }] }),
};
const enabled: EnabledPack[] = [{ pack: menu, config: {}, definition: menu.definition }];
const callMenu = { type: "tool_calls" as const, calls: [{ id: "m1", name: "menu", arguments: "{}" }] };

let c: ChannelWorld;
let seq = 0;

beforeAll(async () => {
  c = await startChannelWorld({
    packs: { ...platformPacks, loadEnabled: async () => enabled },
    bot: { language: "en", figureCheck: "hold" },
  });
  c.w.fake.setRules([
    { match: "burger price", steps: [callMenu, { type: "text", text: "The burger is €14.50." }] },
    { match: "burger cost", steps: [callMenu, { type: "text", text: "The burger is 12.50 EUR." }] },
  ]);
});
afterAll(() => c?.close());

describe("hold mode on a channel", () => {
  it("WhatsApp: the unsupported price is never sent, the honest sentence is", async () => {
    seq++;
    const from = `1555088${String(seq).padStart(4, "0")}`;
    await c.post(
      textMessage("What is the burger price?", {
        id: `wamid.FIG${seq}x`,
        from,
        timestamp: Math.floor(Date.now() / 1000),
      }),
    );
    const sent = await eventually(async () => {
      const s = c.graph.sent.filter((m) => m.to === from);
      expect(s.length).toBeGreaterThan(0);
      return s;
    });
    const bodies = sent.map((s) => textOf(s) ?? "");
    expect(bodies.join("\n")).not.toContain("14.50");
    expect(bodies[0]).toContain(heldAnswer("en"));
  });

  it("Telegram: a supported price is sent as written", async () => {
    seq++;
    const chatId = 5_550_880_000 + seq;
    await c.postTelegram(
      textUpdate("How much does the burger cost?", {
        updateId: 880_000 + seq,
        chatId,
        date: Math.floor(Date.now() / 1000),
      }),
    );
    const sent = await eventually(async () => {
      const s = c.telegram.sent.filter((m) => String(m.chatId) === String(chatId));
      expect(s.length).toBeGreaterThan(0);
      return s;
    });
    expect(sent[0]?.html).toContain("The burger is 12.50 EUR.");
  });
});
