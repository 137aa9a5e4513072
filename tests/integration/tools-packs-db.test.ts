import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getPackConfig, listPackConfigs } from "@/lib/db/queries/packs";
import { createTenant, findTenantBySlug } from "@/lib/db/queries/tenants";
import { packConfigs } from "@/lib/db/schema";
import { log } from "@/lib/log";
import { testPack } from "@/lib/pack-settings/test-pack";
import { createGuardedFetcher, withFetcher } from "@/lib/security/fetch";
import { keysFromEnv } from "@/lib/security/secrets";
import { DEMO_SLUG, seed } from "@/lib/tenants/seed";
import { validatePackConfig } from "@/lib/tools/config";
import { loadEnabledPacks, savePackSettings } from "@/lib/tools/config-store";
import { definePack } from "@/lib/tools/contract";
import { fetchJson } from "@/lib/tools/packs/fetch-json";
import { runToolCall } from "@/lib/tools/runtime";
import { freshDb, type TestDb } from "../support/db";
import { type FixtureSite, startFixtureSite } from "../support/fixture-site";

// Saved pack configs in the database: sealing, change tracking, tenant isolation, loading for a chat, and
// the admin's "test this pack" button, including one real https run against the fixture site.

process.env.MICHI_SECRET_KEY = Buffer.alloc(32, 5).toString("base64");
process.env.MICHI_AUTH_SECRET ??= "tools-test-auth-secret-0123456789abcdef";
process.env.MICHI_DATA_DIR = mkdtempSync(path.join(tmpdir(), "michi-tools-test-"));
process.env.MICHI_LOG_LEVEL = "silent";
(globalThis as { __michiEnv?: unknown; __michiLog?: unknown }).__michiEnv = undefined;
(globalThis as { __michiLog?: unknown }).__michiLog = undefined;

const secretPack = definePack({
  id: "secret_probe",
  label: "Probing",
  definition: {
    type: "function",
    function: { name: "secret_probe", description: "x", parameters: { type: "object", properties: {} } },
  },
  configFields: [
    { key: "region", label: "Region", type: "text", required: true },
    { key: "apiToken", label: "API token", type: "secret", required: true },
  ],
  async run(config) {
    return { region: config.region, tokenLength: config.apiToken.length };
  },
});

let t: TestDb;
let a: { id: string };
let b: { id: string };
let site: FixtureSite;

beforeAll(async () => {
  t = await freshDb();
  a = await createTenant(t.handle.platform, { slug: "tools-a", name: "A", siteDomains: ["michi-cafe.com"] });
  b = await createTenant(t.handle.platform, { slug: "tools-b", name: "B" });
  site = await startFixtureSite({
    routes: {
      "/api/events.json": {
        events: [
          { title: "Latte art", seats: 4, organiser: { email: "owner@example.com" } },
          { title: "Cupping", seats: 0, organiser: { email: "owner@example.com" } },
        ],
      },
    },
  });
});
afterAll(async () => {
  await site?.close();
  await t?.close();
});

const save = (tenantId: string, packId: string, change: Parameters<typeof savePackSettings>[3]) =>
  t.handle.forTenant(tenantId, (tx) => savePackSettings(tx, tenantId, packId, change, null));

describe("savePackSettings", () => {
  it("seals secrets and reports changed keys, never values", async () => {
    const first = await save(a.id, "secret_probe", {
      enabled: true,
      config: { region: "eu" },
      secretsSet: { apiToken: "tok_live_abcdef" },
    });
    expect(first.changedFields.sort()).toEqual(["apiToken", "enabled", "region"]);
    const row = await t.handle.forTenant(a.id, (tx) => getPackConfig(tx, "secret_probe"));
    expect(JSON.stringify(row)).not.toContain("tok_live_abcdef");
    expect(row?.secrets.apiToken?.kid).toMatch(/^[0-9a-f]{8}$/);

    const same = await save(a.id, "secret_probe", { config: { region: "eu" } });
    expect(same.changedFields).toEqual([]);
    const region = await save(a.id, "secret_probe", { config: { region: "us" } });
    expect(region.changedFields).toEqual(["region"]);
  });

  it("keeps each tenant's rows to itself", async () => {
    await save(b.id, "get_business_info", { enabled: true, config: { phone: "+1 555 0199" } });
    const seenByB = await t.handle.forTenant(b.id, (tx) => listPackConfigs(tx));
    expect(seenByB.map((r) => r.packId)).toEqual(["get_business_info"]);
    expect(seenByB.every((r) => r.tenantId === b.id)).toBe(true);
    expect(await t.handle.forTenant(b.id, (tx) => getPackConfig(tx, "secret_probe"))).toBeNull();
  });
});

describe("loadEnabledPacks", () => {
  it("decrypts secrets for run and skips unregistered packs", async () => {
    await save(a.id, "retired_pack", { enabled: true, config: {} });
    const enabled = await loadEnabledPacks(t.handle, a.id, [secretPack]);
    expect(enabled.map((e) => e.pack.id)).toEqual(["secret_probe"]);
    expect(enabled[0]!.config).toEqual({ region: "us", apiToken: "tok_live_abcdef" });
  });

  it("skips a pack whose sealed secret was moved from another tenant", async () => {
    const stolen = (await t.handle.platform.select().from(packConfigs)).find(
      (r) => r.tenantId === a.id && r.packId === "secret_probe",
    )!;
    await t.handle.platform.insert(packConfigs).values({
      tenantId: b.id,
      packId: "secret_probe",
      enabled: true,
      config: { region: "eu" },
      secrets: stolen.secrets,
    });
    expect(await loadEnabledPacks(t.handle, b.id, [secretPack])).toEqual([]);
  });

  it("a saved change reaches the next load, though opened packs are reused between turns", async () => {
    const first = await loadEnabledPacks(t.handle, a.id, [secretPack]);
    expect(first[0]!.config).toMatchObject({ region: "us" });
    // Unchanged row: the same opened pack comes back.
    expect((await loadEnabledPacks(t.handle, a.id, [secretPack]))[0]).toBe(first[0]);
    await save(a.id, "secret_probe", { config: { region: "eu" } });
    expect((await loadEnabledPacks(t.handle, a.id, [secretPack]))[0]!.config).toMatchObject({ region: "eu" });
    // An operator's direct edit of the stored row (no updated_at change) is seen too.
    await t.handle.platform.execute(
      sql`update pack_configs set config = '{"region":"ap"}'::jsonb where tenant_id = ${a.id} and pack_id = 'secret_probe'`,
    );
    expect((await loadEnabledPacks(t.handle, a.id, [secretPack]))[0]!.config).toMatchObject({ region: "ap" });
    await save(a.id, "secret_probe", { config: { region: "us" } });
  });

  it("skips a pack whose saved config no longer parses", async () => {
    await save(a.id, "secret_probe", { config: {} });
    expect(await loadEnabledPacks(t.handle, a.id, [secretPack])).toEqual([]);
    await save(a.id, "secret_probe", { config: { region: "us" } });
  });

  it("loads the demo tenant's seeded business info", async () => {
    await seed(
      t.handle,
      {
        MICHI_ADMIN_EMAIL: "op@example.com",
        MICHI_ADMIN_PASSWORD: "correct horse battery",
        MICHI_DEMO: true,
      },
      () => "x",
    );
    const demo = await findTenantBySlug(t.handle.platform, DEMO_SLUG);
    const enabled = await loadEnabledPacks(t.handle, demo!.id);
    expect(enabled.map((e) => e.pack.id)).toEqual(["get_business_info"]);
    expect(enabled[0]!.config).toMatchObject({ phone: "+1 555 0100" });
    expect(keysFromEnv().current).toHaveLength(32);
  });
});

describe("testPack", () => {
  // An admin of tenant A, as the Test panel's guard would hand it over.
  const admin = () =>
    ({
      db: t.handle,
      tenant: a,
      role: "admin",
      user: { id: "00000000-0000-4000-8000-000000000001", email: "admin@tools-a.test", name: "" },
    }) as unknown as Parameters<typeof testPack>[0];
  it("runs a saved but disabled pack and reports size", async () => {
    await save(a.id, "get_business_info", { enabled: false, config: { phone: "+1 555 0100" } });
    const r = await testPack(admin(), "get_business_info", { topic: "phone" });
    expect(r).toMatchObject({
      outcome: "ok",
      label: "Looking up our details",
      result: '{"phone":"+1 555 0100"}',
    });
    expect(r.chars).toBe(r.result.length);
    expect(r.tokens).toBeGreaterThan(0);
    await expect(testPack(admin(), "no_such_pack", {})).rejects.toMatchObject({ code: "not_found" });
  });

  it("shows invalid arguments exactly as the model would see them", async () => {
    const r = await testPack(admin(), "get_business_info", { topic: "recipes" });
    expect(r.outcome).toBe("invalid_args");
    expect(JSON.parse(r.result).error).toBe("invalid_tool_arguments");
  });

  it("runs fetch_json over https against the allowlisted fixture, projected", async () => {
    const validated = await validatePackConfig(
      fetchJson,
      {
        baseUrl: `${site.origin}/`,
        path: "/api/events.json",
        fields: "events[].title\nevents[].seats",
        whenToUse: "Upcoming workshops.",
      },
      { siteDomains: ["michi-cafe.com"], existingSecrets: {}, tenantId: a.id, allowHosts: [site.host] },
    );
    expect(validated.ok).toBe(true);
    if (!validated.ok) return;
    await save(a.id, "fetch_json", { config: validated.config });
    const fetcher = createGuardedFetcher({ allowHosts: [site.host], extraCaPem: site.caPem });
    const r = await withFetcher(fetcher, () => testPack(admin(), "fetch_json", {}));
    expect(r.outcome).toBe("ok");
    expect(JSON.parse(r.result)).toEqual({
      events: [
        { title: "Latte art", seats: 4 },
        { title: "Cupping", seats: 0 },
      ],
    });
    expect(site.requests.at(-1)?.path).toBe("/api/events.json");
    await fetcher.close();
  });

  it("runs several calls concurrently through the real runtime without mixing results", async () => {
    const enabled = await loadEnabledPacks(t.handle, b.id);
    const calls = ["address", "phone", "hours"].map((topic, i) =>
      runToolCall({
        call: { id: `c${i}`, name: "get_business_info", arguments: JSON.stringify({ topic }) },
        enabled,
        ctx: {
          tenantId: b.id,
          conversationId: null,
          signal: new AbortController().signal,
          log: log(),
        },
        timeoutMs: 2000,
        maxChars: 4000,
      }),
    );
    const results = await Promise.all(calls);
    expect(results.map((r) => r.callId)).toEqual(["c0", "c1", "c2"]);
    expect(JSON.parse(results[1]!.result)).toEqual({ phone: "+1 555 0199" });
  });
});
