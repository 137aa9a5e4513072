import { describe, expect, it } from "vitest";
import { createLogger } from "@/lib/log";
import { packFaults } from "@/lib/tools/check";
import { configSchema } from "@/lib/tools/config";
import { confirmCard, wordValue } from "@/lib/tools/confirm";
import type { ToolPack } from "@/lib/tools/contract";
import { findPack } from "@/lib/tools/index";
import { definitionFor, runToolCall } from "@/lib/tools/runtime";

// Issue 41: what a confirmation card says (labelled, translated, never JSON), what check:packs demands of a
// pack's `confirm`, and that the run wrapper never runs such a pack without the confirmed call's key.

const booking: ToolPack = {
  id: "book_table",
  label: "Booking your table",
  definition: {
    type: "function",
    function: {
      name: "book_table",
      description: "Books a table.",
      parameters: {
        type: "object",
        properties: {
          people: { type: "integer" },
          outside: { type: "boolean" },
          name: { type: "string" },
          notes: { type: "string" },
        },
        required: ["people", "name"],
        additionalProperties: false,
      },
    },
  },
  configFields: [],
  confirm: {
    title: { en: "Book this table?", ja: "この席を予約しますか？" },
    fields: [
      { key: "people", label: "People", labels: { ja: "人数" } },
      { key: "outside", label: "Outside" },
      { key: "name", label: "Name" },
      { key: "notes", label: "Notes" },
    ],
  },
  async run() {
    return { booked: true };
  },
  example: { config: {}, args: { people: 2, name: "Ana" } },
};

describe("the card's words", () => {
  it("labels each value in the visitor's language and leaves absent ones out", () => {
    expect(
      confirmCard({ pack: booking, config: {} }, { people: 1200, outside: false, name: "Ana" }, "ja"),
    ).toEqual({
      title: "この席を予約しますか？",
      fields: [
        { label: "人数", value: "1,200" },
        { label: "Outside", value: "いいえ" },
        { label: "Name", value: "Ana" },
      ],
    });
    expect(confirmCard({ pack: booking, config: {} }, { people: 2, name: "Ana" }, "fr").title).toBe(
      "Book this table?",
    );
  });

  it("never shows JSON: numbers, lists and objects are words", () => {
    expect(wordValue(1234.5, "de")).toBe("1.234,5");
    expect(wordValue(true, "es")).toBe("Sí");
    expect(wordValue(["cake", 2, true], "en")).toBe("cake, 2, Yes");
    expect(wordValue({ street: "Main St 1", floor: 2 }, "en")).toBe("street: Main St 1; floor: 2");
    expect(wordValue("", "en")).toBeUndefined();
    expect(wordValue({}, "en")).toBeUndefined();
  });

  it("post_json's card shows the fields the owner declared, under the owner's labels", () => {
    const pack = findPack("post_json")!;
    const config = configSchema(pack).parse(pack.example!.config);
    expect(confirmCard({ pack, config }, pack.example!.args as Record<string, unknown>, "en")).toEqual({
      title: "Order this cake?",
      fields: [
        { label: "Cake", value: "Chocolate" },
        { label: "Pick-up date", value: "2025-06-07" },
        { label: "Candles", value: "Yes" },
      ],
    });
    // The model's schema is built from the same declaration.
    expect(definitionFor(pack, config).function.parameters).toMatchObject({
      properties: { cake: { type: "string" }, pickupDate: { type: "string" }, candles: { type: "boolean" } },
      required: ["cake", "pickupDate"],
      additionalProperties: false,
    });
  });
});

describe("check:packs on confirm", () => {
  it("accepts a well-formed confirming pack, and post_json", () => {
    expect(packFaults(booking)).toEqual([]);
    expect(packFaults(findPack("post_json")!)).toEqual([]);
  });

  it("names a card field that is no argument, an empty label and an empty title", () => {
    const broken: ToolPack = {
      ...booking,
      confirm: {
        title: "  ",
        fields: [
          { key: "date", label: "Date" },
          { key: "name", label: "" },
        ],
      },
    };
    expect(packFaults(broken)).toEqual([
      "confirm.title is empty",
      'confirm field "date" is not an argument of the parameters schema',
      'confirm field "name" has no label',
    ]);
  });

  it("checks fields built from the config against the schema the example config builds", () => {
    const pack = findPack("post_json")!;
    const broken: ToolPack = {
      ...pack,
      confirm: { ...pack.confirm!, fields: () => [{ key: "flavour", label: "Flavour" }] },
    };
    expect(packFaults(broken)).toContain(
      'confirm field "flavour" is not an argument of the parameters schema',
    );
    expect(packFaults({ ...broken, example: undefined })).toContain(
      "a pack with confirm needs an example, so its card can be checked",
    );
  });
});

describe("the run wrapper", () => {
  it("refuses to run a confirming pack without the confirmed call's idempotency key", async () => {
    let ran = 0;
    const pack: ToolPack = {
      ...booking,
      async run() {
        ran++;
        return { booked: true };
      },
    };
    const input = (idempotencyKey?: string) => ({
      call: { id: "c1", name: "book_table", arguments: '{"people":2,"name":"Ana"}' },
      enabled: [{ pack, config: {}, definition: pack.definition }],
      ctx: {
        tenantId: "00000000-0000-4000-8000-000000000000",
        conversationId: null,
        signal: new AbortController().signal,
        log: createLogger({ write: () => {} }, "silent"),
        idempotencyKey,
      },
      timeoutMs: 1000,
      maxChars: 2000,
    });
    expect((await runToolCall(input())).outcome).toBe("error");
    expect(ran).toBe(0);
    expect((await runToolCall(input("00000000-0000-4000-8000-00000000c0f1"))).outcome).toBe("ok");
    expect(ran).toBe(1);
  });
});
