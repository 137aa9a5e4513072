import { describe, expect, it } from "vitest";
import { sealSecret } from "@/lib/security/secrets";
import type { LookupFn } from "@/lib/security/url-policy";
import { configSchema, decimalPoint, pathProblem, validatePackConfig } from "@/lib/tools/config";
import { definePack } from "@/lib/tools/contract";
import { fetchJson } from "@/lib/tools/packs/fetch-json";
import { businessInfo } from "@/lib/tools/packs/get-business-info";

const publicDns: LookupFn = async () => [{ address: "93.184.216.34", family: 4 }];
const privateDns: LookupFn = async () => [{ address: "10.0.0.8", family: 4 }];
const tenantId = "8d7c2a36-1111-4c4c-9a9a-000000000001";
const keys = { current: Buffer.alloc(32, 3) };

const pack = definePack({
  id: "sample",
  label: "Sample",
  definition: {
    type: "function",
    function: { name: "sample", description: "x", parameters: { type: "object", properties: {} } },
  },
  configFields: [
    { key: "baseUrl", label: "Base", type: "url", required: true },
    { key: "path", label: "Path", type: "path", default: "/api/menu.json" },
    { key: "title", label: "Title", type: "text", maxLength: 10 },
    { key: "count", label: "Count", type: "number", integer: true, min: 1, max: 5, default: 2 },
    { key: "live", label: "Live", type: "boolean" },
    {
      key: "mode",
      label: "Mode",
      type: "select",
      options: [
        { value: "a", label: "A" },
        { value: "b", label: "B" },
      ],
      default: "a",
    },
    { key: "tags", label: "Tags", type: "list", maxItems: 3 },
    { key: "token", label: "Token", type: "secret", required: true },
    { key: "extra", label: "Extra token", type: "secret" },
  ],
  async run() {
    return "ok";
  },
});

const opts = (over: Partial<Parameters<typeof validatePackConfig>[2]> = {}) => ({
  siteDomains: ["michi-cafe.com"],
  existingSecrets: {},
  tenantId,
  lookup: publicDns,
  allowHosts: [],
  ...over,
});

describe("configSchema", () => {
  it("drops unknown keys, applies defaults and coerces form values", () => {
    const parsed = configSchema(pack, { secrets: false }).parse({
      baseUrl: "https://michi-cafe.com",
      count: "3",
      live: "on",
      tags: "vegan\n\n  gluten free \n",
      sneaky: "value",
    });
    expect(parsed).toEqual({
      baseUrl: "https://michi-cafe.com",
      path: "/api/menu.json",
      count: 3,
      live: true,
      mode: "a",
      tags: ["vegan", "gluten free"],
    });
  });

  it("enforces per-type limits", () => {
    const r = configSchema(pack, { secrets: false }).safeParse({
      baseUrl: "ftp://x",
      title: "far too long a title",
      count: 2.5,
      mode: "c",
      tags: ["1", "2", "3", "4"],
    });
    expect(r.success).toBe(false);
    const paths = r.success ? [] : r.error.issues.map((i) => i.path[0]);
    expect(new Set(paths)).toEqual(new Set(["baseUrl", "title", "count", "mode", "tags"]));
  });
});

describe("path fields", () => {
  it.each([
    ["/api/menu.json", null],
    ["/api/hours/", null],
    ["api/menu.json", /start with \//],
    ["//evil.com/x", /must not start with \/\//],
    ["/../admin", /\. or \.\./],
    ["/api/./x", /\. or \.\./],
    ["/api?x=1", /\? or #/],
    ["/api#x", /\? or #/],
    ["/api\\..\\x", /\\ or %/],
    ["/%2e%2e/admin", /\\ or %/],
    ["/https://evil.com", /scheme/],
    ["/a b", /not allowed/],
  ])("%s", (p, expected) => {
    const problem = pathProblem(p);
    if (expected === null) expect(problem).toBeNull();
    else expect(problem).toMatch(expected);
  });
});

describe("validatePackConfig", () => {
  it("accepts a valid form, normalises the URL and separates secrets", async () => {
    const r = await validatePackConfig(
      pack,
      { baseUrl: "https://michi-cafe.com/", token: "tok_1", extra: "" },
      opts(),
    );
    expect(r).toEqual({
      ok: true,
      config: {
        baseUrl: "https://michi-cafe.com",
        path: "/api/menu.json",
        count: 2,
        live: false,
        mode: "a",
        tags: [],
      },
      secretsSet: { token: "tok_1" },
      secretsClear: [],
    });
  });

  it("runs the url policy and reports it on the field", async () => {
    const r = await validatePackConfig(
      pack,
      { baseUrl: "https://michi-cafe.com", token: "t" },
      opts({ lookup: privateDns }),
    );
    expect(r).toEqual({ ok: false, fieldErrors: { baseUrl: "This host resolves to a private address" } });
    const off = await validatePackConfig(pack, { baseUrl: "https://evil.example", token: "t" }, opts());
    expect(off.ok ? {} : off.fieldErrors).toEqual({
      baseUrl: "This address is not on your site's domains (Site & embed)",
    });
  });

  it("keeps a stored secret when the input is empty, and requires one when none is stored", async () => {
    const missing = await validatePackConfig(pack, { baseUrl: "https://michi-cafe.com" }, opts());
    expect(missing.ok ? {} : missing.fieldErrors).toEqual({ token: "This field is required" });
    const stored = { token: sealSecret("tok_old", { tenantId, packId: "sample", key: "token" }, keys) };
    const kept = await validatePackConfig(
      pack,
      { baseUrl: "https://michi-cafe.com", token: "" },
      opts({ existingSecrets: stored }),
    );
    expect(kept.ok && kept.secretsSet).toEqual({});
  });

  it("clears an optional secret with <key>__clear and refuses to clear a required one", async () => {
    const stored = {
      token: sealSecret("tok", { tenantId, packId: "sample", key: "token" }, keys),
      extra: sealSecret("x", { tenantId, packId: "sample", key: "extra" }, keys),
    };
    const cleared = await validatePackConfig(
      pack,
      { baseUrl: "https://michi-cafe.com", extra__clear: "1" },
      opts({ existingSecrets: stored }),
    );
    expect(cleared.ok && cleared.secretsClear).toEqual(["extra"]);
    const refused = await validatePackConfig(
      pack,
      { baseUrl: "https://michi-cafe.com", token__clear: "1" },
      opts({ existingSecrets: stored }),
    );
    expect(refused.ok ? {} : refused.fieldErrors).toEqual({ token: "This field is required" });
  });

  it("checks fetch_json's field allowlist entries", async () => {
    const r = await validatePackConfig(
      fetchJson,
      {
        baseUrl: "https://michi-cafe.com",
        path: "/api/events.json",
        fields: "events[].title\nevents[].venue.name\nconstructor(){}",
        whenToUse: "Events.",
      },
      opts(),
    );
    expect(r.ok ? {} : r.fieldErrors).toEqual({ fields: expect.stringMatching(/"constructor\(\)\{\}"/) });
  });
});

describe("messages that say what to fix", () => {
  const events = (fields: string, extra: Record<string, unknown> = {}) =>
    validatePackConfig(
      fetchJson,
      { baseUrl: "https://michi-cafe.com", path: "/api/events.json", fields, whenToUse: "Events.", ...extra },
      opts(),
    );

  it("refuses a JSONPath-style $. with the fix spelled out", async () => {
    const r = await events("events[].title\n$.events[].venue");
    expect(r.ok ? {} : r.fieldErrors).toEqual({
      fields: 'Line 2 ("$.events[].venue"): leave out the leading "$": write events[].venue',
    });
  });

  it("says which line of a list is too long", async () => {
    const long = `events[].${"x".repeat(130)}`;
    const r = await events(`events[].title\nevents[].date\n${long}`);
    expect(r.ok ? "" : r.fieldErrors.fields).toMatch(
      /^Line 3 \("events\[\]\.x+…"\): is 139 characters long; keep each entry under 120$/,
    );
  });

  it("refuses an over-long text with its length instead of cutting it", async () => {
    const r = await events("events[].title", { whenToUse: "w".repeat(301) });
    expect(r.ok ? {} : r.fieldErrors).toEqual({
      whenToUse: "This is 301 characters long; use at most 300 (nothing was cut, nothing saved)",
    });
  });

  it("reads a decimal comma in a number", () => {
    expect(decimalPoint("35,0116")).toBe("35.0116");
    expect(decimalPoint("-3,5")).toBe("-3.5");
    expect(decimalPoint("1,000,000")).toBe("1,000,000");
    const parsed = configSchema(pack, { secrets: false }).safeParse({
      baseUrl: "https://a.example",
      count: "3,0",
    });
    expect(parsed.success && parsed.data.count).toBe(3);
  });

  it("checks an e-mail field", async () => {
    const bad = await validatePackConfig(businessInfo, { email: "hello at example" }, opts());
    expect(bad.ok ? {} : bad.fieldErrors).toEqual({
      email: "Enter an e-mail address, like hello@example.com",
    });
    const good = await validatePackConfig(businessInfo, { email: "hello@michi-cafe.example" }, opts());
    expect(good.ok).toBe(true);
  });
});
