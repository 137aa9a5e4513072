import { describe, expect, it } from "vitest";
import { checkPackList, packFaults, packListFaults } from "@/lib/tools/check";
import { ALL_PACKS } from "@/lib/tools/index";
import { getJson, type ToolPack } from "@/lib/tools/registry";

// The contract's own example, verbatim: it must keep compiling against the ToolPack type (tsc checks this
// file) and pass the pack list rules.
const openingStatus: ToolPack = {
  id: "get_opening_status",
  label: "Checking if we're open", // the live chip visitors see
  definition: {
    // what the model sees
    type: "function",
    function: {
      name: "get_opening_status",
      description: "Whether the business is open right now, and when it next opens.",
      parameters: { type: "object", properties: {}, required: [] },
    },
  },
  configFields: [
    // drives the admin form automatically
    { key: "baseUrl", label: "Site base URL", type: "url", required: true },
  ],
  async run(config, _args, ctx) {
    // ctx.tenantId is platform-supplied
    const data = await getJson(`${config.baseUrl}/api/hours/`);
    // Project to a handful of fields: the result is re-sent on EVERY loop round.
    return JSON.stringify({ open: data.open, nextChange: data.nextChange });
  },
};

const MY_PACKS = [openingStatus];

const ok = (over: Partial<ToolPack> = {}): ToolPack => ({ ...openingStatus, ...over });

function startupError(packs: ToolPack[]): string {
  try {
    checkPackList(packs);
  } catch (e) {
    return (e as Error).message;
  }
  return "";
}

describe("pack list check", () => {
  it("accepts the built-in packs and the contract example", () => {
    expect(packListFaults(ALL_PACKS)).toEqual([]);
    expect(packListFaults(MY_PACKS)).toEqual([]);
    expect(ALL_PACKS.map((p) => p.id)).toEqual(
      expect.arrayContaining([
        "fetch_json",
        "get_opening_status",
        "get_business_info",
        "get_menu",
        "check_stock",
        "get_weather",
      ]),
    );
  });

  it("stops on a duplicate id, naming the pack", () => {
    const msg = startupError([...ALL_PACKS, ok()]);
    expect(msg).toMatch(/Tool pack "get_opening_status": duplicate id/);
  });

  it("stops when the function name differs from the id", () => {
    const broken = ok({
      id: "opening",
      definition: {
        ...openingStatus.definition,
        function: { ...openingStatus.definition.function, name: "get_opening_status" },
      },
    });
    expect(startupError([broken])).toMatch(
      /Tool pack "opening": definition.function.name "get_opening_status" differs/,
    );
  });

  it("stops when the parameters schema does not compile", () => {
    const broken = ok({
      definition: {
        type: "function",
        function: {
          name: "get_opening_status",
          description: "x",
          parameters: { type: "object", properties: { day: { type: "strnig" } }, require: ["day"] },
        },
      },
    });
    expect(startupError([broken])).toMatch(
      /Tool pack "get_opening_status": parameters schema does not compile/,
    );
  });

  it("rejects bad and duplicate config keys, empty selects and unsafe defaults", () => {
    const faults = packFaults(
      ok({
        configFields: [
          { key: "base-url", label: "A", type: "url" },
          { key: "mode", label: "Mode", type: "select", options: [] },
          { key: "mode", label: "Mode again", type: "text" },
          { key: "path", label: "Path", type: "path", default: "/../admin" },
          { key: "n", label: "N", type: "number", min: 5, max: 1 },
        ],
      }),
    );
    expect(faults.join("\n")).toMatch(/"base-url" must be letters and digits/);
    expect(faults.join("\n")).toMatch(/"mode" is a select without options/);
    expect(faults.join("\n")).toMatch(/"mode" is used twice/);
    expect(faults.join("\n")).toMatch(/"path" has an unsafe default path/);
    expect(faults.join("\n")).toMatch(/"n" has min > max/);
  });

  it("rejects an example whose config or arguments do not validate", () => {
    const faults = packFaults(
      ok({ example: { config: { baseUrl: "http://x.example" }, args: { extra: 1 } } }),
    );
    expect(faults.join("\n")).toMatch(/example config does not validate/);
  });

  it("rejects an empty label and an unknown language", () => {
    const faults = packFaults(ok({ label: "", labels: { xx: "?" } as never }));
    expect(faults.join("\n")).toMatch(/label \(the chip text\) is empty/);
    expect(faults.join("\n")).toMatch(/unknown language "xx"/);
  });
});
