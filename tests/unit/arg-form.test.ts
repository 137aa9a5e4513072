import { describe, expect, it } from "vitest";
import { argFields, argName, argValues, readArgs } from "@/lib/tools/arg-form";
import { ALL_PACKS } from "@/lib/tools/index";

// The Test panel's form comes from each pack's model-facing parameters, never from a hand-written list.

const pack = (id: string) => ALL_PACKS.find((p) => p.id === id)!;
const fieldsOf = (id: string) => argFields(pack(id).definition.function.parameters);
const fd = (v: Record<string, string>) => {
  const f = new FormData();
  for (const [k, val] of Object.entries(v)) f.set(argName(k), val);
  return f;
};

describe("argFields", () => {
  it("check_stock asks for its product (required), described, prefilled from its example", () => {
    const fields = fieldsOf("check_stock");
    expect(fields[0]).toMatchObject({ key: "product", label: "Product", kind: "text", required: true });
    expect(fields[0]!.description).toMatch(/product name/);
    expect(argValues(fields, pack("check_stock").example?.args)).toEqual({ product: "ceramic pour-over" });
  });

  it("an enum becomes a choice with its values; optional stays optional", () => {
    const menu = fieldsOf("get_menu");
    const diet = menu.find((f) => f.key === "dietary")!;
    expect(diet).toMatchObject({ kind: "choice", required: false });
    expect(diet.options).toContain("vegan");
    expect(fieldsOf("fetch_json")).toEqual([]);
  });

  it("every built-in pack's example fills its own form and passes it", () => {
    // A pack that acts for the visitor is never run from the Test panel (pack-settings/test-pack.ts).
    for (const p of ALL_PACKS.filter((x) => !x.confirm)) {
      const fields = argFields(p.definition.function.parameters);
      const values = argValues(fields, p.example?.args);
      const r = readArgs(fields, fd(values));
      expect(r, p.id).toEqual({ ok: true, args: p.example?.args ?? {} });
    }
  });
});

describe("readArgs", () => {
  const fields = argFields({
    type: "object",
    properties: {
      topic: { type: "string", enum: ["hours", "phone"] },
      count: { type: "integer" },
      ratio: { type: "number" },
      open: { type: "boolean" },
    },
    required: ["topic"],
  });

  it("says what is missing or wrong in plain words, keyed by input", () => {
    const r = readArgs(fields, fd({ count: "2.5", ratio: "abc", topic: "" }));
    expect(r).toEqual({
      ok: false,
      fieldErrors: {
        [argName("topic")]: 'Fill in "Topic": the tool needs it.',
        [argName("count")]: '"Count" must be a whole number, like 3.',
        [argName("ratio")]: '"Ratio" must be a number, like 3 or 2.5.',
      },
    });
  });

  it("types the values and leaves blank optional ones out", () => {
    expect(readArgs(fields, fd({ topic: "hours", count: "3", ratio: "0,5", open: "false" }))).toEqual({
      ok: true,
      args: { topic: "hours", count: 3, ratio: 0.5, open: false },
    });
    expect(readArgs(fields, fd({ topic: "phone" }))).toEqual({ ok: true, args: { topic: "phone" } });
    expect(readArgs(fields, fd({ topic: "recipes" }))).toMatchObject({ ok: false });
  });
});
