import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { platformPacks } from "@/lib/chat/packs";
import { env } from "@/lib/env";
import type { ToolPack } from "@/lib/tools/contract";
import type { EnabledPack } from "@/lib/tools/runtime";
import { figureNote, heldAnswer } from "@/shared/figure-check";
import { handleChat } from "@/widget/server/chat";
import { type ChatWorld, readEvents, startChatWorld, textOf } from "../support/chat-world";
import type { Step } from "../support/fake-model";

// The figure check end to end through the widget's endpoint, with a scripted model and packs handed in: a
// price none of the turn's sources states is marked (mark) or replaced (hold) by an event at the end of the
// streamed answer, and stored with its verdict; the same price, written another way in a pack result or a
// cited passage, passes.

let w: ChatWorld;

beforeAll(async () => {
  w = await startChatWorld();
});
afterAll(() => w?.close());
beforeEach(() => w.fake.reset());

function pack(id: string, result: Record<string, unknown>): ToolPack {
  return {
    id,
    label: `Running ${id}`,
    definition: {
      type: "function",
      function: { name: id, description: `${id} (test)`, parameters: { type: "object", properties: {} } },
    },
    configFields: [],
    run: async () => result,
  };
}

// The menu as a pack projects it, and the search's passages as search_knowledge shapes them.
const menu = pack("menu", {
  items: [
    { name: "Burger", price: "12,50 €" },
    { name: "Fries", price: "4 €" },
  ],
});
const search = pack("search_knowledge", {
  found: true,
  passages: [
    {
      n: 1,
      title: "Prices",
      url: "https://shop.example/prices",
      text: "Haircut: 25,00 EUR. Open 09:00–18:00.",
    },
  ],
});

const call = (name: string): Step => ({
  type: "tool_calls",
  calls: [{ id: `c_${name}`, name, arguments: "{}" }],
});

async function turn(bot: Record<string, unknown>, packs: ToolPack[], steps: Step[], lang = "en") {
  const tenant = await w.tenant({ bot });
  const token = await w.token(tenant.widgetKey);
  const message = `question ${Math.random().toString(36).slice(2)}`;
  w.fake.setRules([{ match: message, steps }]);
  const enabled: EnabledPack[] = packs.map((p) => ({ pack: p, config: {}, definition: p.definition }));
  const res = await handleChat(
    w.chatRequest(tenant.widgetKey, { message, lang }, { token }),
    tenant.widgetKey,
    {
      db: async () => w.db,
      env,
      packs: { ...platformPacks, loadEnabled: async () => enabled },
    },
  );
  expect(res.status).toBe(200);
  const events = await readEvents(res);
  const answer = (await w.rows(tenant.id)).messages.find((m) => m.role === "assistant");
  return { events, answer, names: events.map((e) => e.event) };
}

describe("an answer with a price none of the turn's sources states", () => {
  const wrong: Step[] = [call("menu"), { type: "text", text: "The burger is €14.50 and fries are 4 euros." }];

  it("mark (the default): the answer stays, a note arrives before done and is stored with its verdict", async () => {
    const t = await turn({}, [menu], wrong);
    expect(textOf(t.events)).toBe("The burger is €14.50 and fries are 4 euros.");
    expect(t.names.slice(-2)).toEqual(["check", "done"]);
    expect(t.events.at(-2)?.data).toEqual({ action: "mark", note: figureNote("en") });
    expect(t.answer?.content).toBe("The burger is €14.50 and fries are 4 euros.");
    expect(t.answer?.figureCheck).toEqual({
      mode: "mark",
      unsupported: 1,
      figures: [
        { text: "€14.50", kind: "money", found: null },
        { text: "4 euros", kind: "money", found: "menu" },
      ],
    });
  });

  it("hold: the streamed answer is replaced by an honest sentence, which is what is stored", async () => {
    const t = await turn({ figureCheck: "hold" }, [menu], wrong, "es");
    expect(t.names.slice(-2)).toEqual(["check", "done"]);
    expect(t.events.at(-2)?.data).toEqual({ action: "hold", text: heldAnswer("es") });
    expect(t.answer?.content).toBe(heldAnswer("es"));
    expect(t.answer?.figureCheck).toMatchObject({
      mode: "hold",
      unsupported: 1,
      held: "The burger is €14.50 and fries are 4 euros.",
    });
  });

  it("off: nothing is checked or stored", async () => {
    const t = await turn({ figureCheck: "off" }, [menu], wrong);
    expect(t.names).not.toContain("check");
    expect(t.answer?.figureCheck).toBeNull();
  });
});

describe("the same figure written another way", () => {
  it("passes when a pack result states it", async () => {
    const t = await turn(
      { figureCheck: "hold" },
      [menu],
      [call("menu"), { type: "text", text: "The burger costs EUR 12.50." }],
    );
    expect(t.names).not.toContain("check");
    expect(t.answer?.content).toBe("The burger costs EUR 12.50.");
    expect(t.answer?.figureCheck).toEqual({
      mode: "hold",
      unsupported: 0,
      figures: [{ text: "EUR 12.50", kind: "money", found: "menu" }],
    });
  });

  it("passes when a cited passage states it, prices and hours alike", async () => {
    const text = "Ein Haarschnitt kostet 25 € [1], wir öffnen um 9 Uhr.";
    const t = await turn(
      { figureCheck: "hold" },
      [search],
      [call("search_knowledge"), { type: "text", text }],
      "de",
    );
    expect(t.names).not.toContain("check");
    expect(t.events.at(-1)?.data.citations).toEqual([
      { n: 1, title: "Prices", url: "https://shop.example/prices" },
    ]);
    expect(t.answer?.figureCheck?.figures).toEqual([
      { text: "25 €", kind: "money", found: "passage [1] Prices" },
      { text: "9 Uhr", kind: "time", found: "passage [1] Prices" },
    ]);
  });
});
