import { describe, expect, it } from "vitest";
import { runConformance, sourceFaults } from "@/lib/tools/conformance";
import { definePack, getJson, type ToolPack } from "@/lib/tools/contract";

// The kit must fail loudly on the mistakes a fork is likely to make.

const base = (id: string, run: ToolPack["run"], example?: ToolPack["example"]): ToolPack =>
  definePack({
    id,
    label: "Testing",
    definition: {
      type: "function",
      function: {
        name: id,
        description: "x",
        parameters: { type: "object", properties: { product: { type: "string" } }, required: [] },
      },
    },
    configFields: [{ key: "baseUrl", label: "Base", type: "url", required: true }],
    run,
    example,
  });

const source = (id: string, body = "") =>
  `import { getJson } from "../registry";\n${body}\nexport const p = { id: "${id}" };`;

describe("source scan", () => {
  it.each([
    ['import http from "node:https";', /Node network module/],
    ['import { request } from "undici";', /HTTP client package/],
    ['import axios from "axios";', /HTTP client package/],
    ["const r = await fetch(url);", /fetch\(\)/],
    ['const m = await import("node:net");', /dynamic import|Node network module/],
    ["const s = new WebSocket(u);", /browser network API/],
    ['import { createGuardedFetcher } from "../../security/fetch";', /fetcher internals/],
  ])("flags %s", (line, what) => {
    expect(sourceFaults(source("x", line)).join("\n")).toMatch(what);
  });

  it("ignores comments and getJson", () => {
    expect(
      sourceFaults(source("x", "// we never call fetch( directly\nconst d = await getJson(url);")),
    ).toEqual([]);
  });
});

describe("runConformance", () => {
  const opts = { timeoutMs: 200, maxChars: 4000 };

  it("fails a pack without an example, one that hangs, one over the cap and one putting arguments in the path", async () => {
    const packs = [
      base("no_example", async () => "ok"),
      base("hangs", () => new Promise(() => {}), { config: { baseUrl: "https://a.example" }, args: {} }),
      base("too_big", async () => "x".repeat(10_000), { config: { baseUrl: "https://a.example" }, args: {} }),
      base("arg_in_path", async (config, args) => getJson(`${config.baseUrl}/p/${String(args.product)}`), {
        config: { baseUrl: "https://a.example" },
        args: { product: "teapot" },
        fixtures: { "/p/teapot": { ok: 1 } },
      }),
      base("good", async (config) => getJson(`${config.baseUrl}/ok`), {
        config: { baseUrl: "https://a.example" },
        args: {},
        fixtures: { "/ok": { fine: true } },
      }),
    ];
    const sources = Object.fromEntries(packs.map((p) => [`/src/lib/tools/packs/${p.id}.ts`, source(p.id)]));
    const reports = await runConformance(packs, { sources, ...opts });
    const byId = Object.fromEntries(reports.map((r) => [r.id, r]));
    expect(byId.no_example!.ok).toBe(false);
    expect(byId.no_example!.lines.join()).toMatch(/declares no example/);
    expect(byId.hangs!.lines.join()).toMatch(/did not answer within 200 ms/);
    expect(byId.too_big!.lines.join()).toMatch(/over the 4000-character cap/);
    expect(byId.arg_in_path!.lines.join()).toMatch(/"teapot"\) appears in the URL host or path/);
    expect(byId.good).toMatchObject({ ok: true });
  });

  it("shows the message of what a pack threw on its example, not only that it failed", async () => {
    const boom = base(
      "boom",
      async (config) => {
        if (config.baseUrl) throw new RangeError("the car park map is empty");
        return "never";
      },
      { config: { baseUrl: "https://a.example" }, args: {} },
    );
    const [report] = await runConformance([boom], {
      sources: { "/src/lib/tools/packs/boom.ts": source("boom") },
      ...opts,
    });
    expect(report!.ok).toBe(false);
    expect(report!.lines.join("\n")).toContain("example run threw RangeError: the car park map is empty");
  });

  it("fails a pack whose source imports a network client, and reports pack list faults by pack", async () => {
    const good = base("uses_undici", async () => "ok", {
      config: { baseUrl: "https://a.example" },
      args: {},
    });
    const dup = base("uses_undici", async () => "ok");
    const reports = await runConformance([good, dup], {
      sources: { "/x/uses_undici.ts": source("uses_undici", 'import { fetch } from "undici";') },
      ...opts,
    });
    expect(reports.every((r) => !r.ok)).toBe(true);
    expect(reports[0]!.lines.join()).toMatch(/HTTP client package/);
    expect(reports[1]!.lines.join()).toMatch(/duplicate id/);
  });
});
