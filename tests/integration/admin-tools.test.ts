import { and, eq } from "drizzle-orm";
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { installTestDb } from "../support/admin-env";
import { actAs } from "../support/admin-mocks";
import { makeTenant, makeUser } from "../support/admin-world";
import type { TestDb } from "../support/db";

vi.mock("@/lib/auth/claims", () => import("../support/admin-mocks").then((m) => m.claimsModule));
vi.mock("next/headers", () => import("../support/admin-mocks").then((m) => m.headersModule));
vi.mock("next/cache", () => import("../support/admin-mocks").then((m) => m.cacheModule));

// An operator-allowed private host, as the e2e fixture uses: it passes the url policy without DNS.
process.env.MICHI_FETCH_ALLOW_HOSTS = "fixture.test:8443";

const { savePackAction, testPackAction, togglePackAction } = await import(
  "@/app/(admin)/admin/[tenant]/tools/actions"
);
const { argName } = await import("@/lib/tools/arg-form");
const { formatSetOn } = await import("@/lib/tools/form-data");
const { requirePack, loadPackGroups, updatePackSettings } = await import("@/lib/pack-settings/settings");
const { ALL_PACKS } = await import("@/lib/tools/index");
const { PackCard } = await import("@/app/(admin)/admin/[tenant]/tools/PackCard");
const { requireTenant } = await import("@/lib/auth/guard");
const { auditLog, packConfigs, tenants } = await import("@/lib/db/schema");
const { fieldName, readSubmission, secretClearName } = await import("@/lib/tools/form-data");
const { definePack } = await import("@/lib/tools/contract");

let t: TestDb;
type U = Awaited<ReturnType<typeof makeUser>>;
let owner: U;
let viewer: U;
let outsider: U;
let shopA: { id: string };

beforeAll(async () => {
  t = await installTestDb();
  owner = await makeUser(t.handle, "owner@tools.test");
  viewer = await makeUser(t.handle, "viewer@tools.test");
  outsider = await makeUser(t.handle, "owner@other.test");
  shopA = await makeTenant(
    t.handle,
    "shop-a",
    [
      [owner, "owner"],
      [viewer, "viewer"],
    ],
    { siteDomains: ["michi.example"] },
  );
  await makeTenant(t.handle, "shop-b", [[outsider, "owner"]]);
});
afterAll(() => t?.close());

function form(v: Record<string, string>): FormData {
  const fd = new FormData();
  for (const [k, val] of Object.entries(v)) fd.append(k, val);
  return fd;
}

const fetchJsonForm = (baseUrl: string, extra: Record<string, string> = {}) =>
  form({
    packId: "fetch_json",
    enabled: "on",
    [fieldName("baseUrl")]: baseUrl,
    [fieldName("path")]: "/api/hours/",
    [fieldName("fields")]: "open\nnextChange",
    [fieldName("maxItems")]: "5",
    [fieldName("whenToUse")]: "Use this to say whether the café is open.",
    ...extra,
  });

const row = async (packId: string) =>
  (
    await t.handle.platform
      .select()
      .from(packConfigs)
      .where(and(eq(packConfigs.tenantId, shopA.id), eq(packConfigs.packId, packId)))
  )[0];
/** The use case called as the save action calls it: the pack's form read first, then the typed input. */
function savePackForm(
  ctx: Parameters<typeof updatePackSettings>[0],
  input: { packId: string; enabled: boolean },
  fd: FormData,
  deps: Parameters<typeof updatePackSettings>[2] = {},
) {
  const pack = requirePack(deps.packs ?? ALL_PACKS, input.packId);
  return updatePackSettings(ctx, { ...input, ...readSubmission(pack.configFields, fd) }, deps);
}

const audits = () => t.handle.platform.select().from(auditLog).where(eq(auditLog.tenantId, shopA.id));

describe("saving a pack through the server action", () => {
  it("refuses http://localhost:8080 with the url policy's message, keeps what was typed and stores nothing", async () => {
    actAs(owner);
    const state = await savePackAction("shop-a", {}, fetchJsonForm("http://localhost:8080"));
    expect(state.ok).toBe(false);
    expect(state.fieldErrors).toEqual({ baseUrl: "URLs must start with https://" });
    expect(state.values).toMatchObject({
      enabled: "on",
      [fieldName("baseUrl")]: "http://localhost:8080",
      [fieldName("fields")]: "open\nnextChange",
    });
    expect(await row("fetch_json")).toBeUndefined();
    expect(await audits()).toHaveLength(0);
  });

  it("refuses an address off the tenant's site domains", async () => {
    actAs(owner);
    const state = await savePackAction("shop-a", {}, fetchJsonForm("https://evil.example"));
    expect(state.fieldErrors?.baseUrl).toBe("This address is not on your site's domains (Site & embed)");
    expect(await row("fetch_json")).toBeUndefined();
  });

  it("stores a valid config, and audits the switch and the changed field names without values", async () => {
    actAs(owner);
    const state = await savePackAction("shop-a", {}, fetchJsonForm("https://fixture.test:8443/"));
    expect(state).toMatchObject({ ok: true });
    const saved = await row("fetch_json");
    expect(saved?.enabled).toBe(true);
    expect(saved?.config).toEqual({
      baseUrl: "https://fixture.test:8443",
      path: "/api/hours/",
      fields: ["open", "nextChange"],
      maxItems: 5,
      whenToUse: "Use this to say whether the café is open.",
    });
    const entries = await audits();
    expect(entries.map((e) => [e.action, e.target]).sort()).toEqual([
      ["pack.config_saved", "fetch_json"],
      ["pack.enabled", "fetch_json"],
    ]);
    const saveEntry = entries.find((e) => e.action === "pack.config_saved")!;
    expect(saveEntry.details).toEqual({ fields: ["baseUrl", "fields", "maxItems", "path", "whenToUse"] });
    expect(saveEntry.actorUserId).toBe(owner.id);
    expect(JSON.stringify(entries)).not.toMatch(/fixture\.test|café is open|nextChange/);
  });

  it("saving the same values again changes nothing and writes no audit entry", async () => {
    actAs(owner);
    const before = (await audits()).length;
    const state = await savePackAction("shop-a", {}, fetchJsonForm("https://fixture.test:8443"));
    expect(state).toMatchObject({ ok: true, message: "No changes to save." });
    expect(await audits()).toHaveLength(before);
  });

  it("refuses a viewer's forged save and changes nothing", async () => {
    actAs(viewer);
    const before = await row("fetch_json");
    const auditCount = (await audits()).length;
    const state = await savePackAction(
      "shop-a",
      {},
      form({ packId: "fetch_json", [fieldName("baseUrl")]: "https://fixture.test:8443/viewer" }),
    );
    expect(state.ok).toBe(false);
    expect(state.message).toMatch(/Only an admin or owner/);
    expect(await row("fetch_json")).toEqual(before);
    expect(await audits()).toHaveLength(auditCount);
  });

  it("refuses a member of another business as if shop-a did not exist", async () => {
    actAs(outsider);
    const before = await row("fetch_json");
    const state = await savePackAction("shop-a", {}, form({ packId: "fetch_json" }));
    expect(state).toMatchObject({ ok: false, message: expect.stringMatching(/not a member/) });
    expect(await row("fetch_json")).toEqual(before);
  });

  it("refuses an unknown pack id", async () => {
    actAs(owner);
    const state = await savePackAction("shop-a", {}, form({ packId: "no_such_pack", enabled: "on" }));
    expect(state).toMatchObject({ ok: false, message: "This tool pack does not exist." });
  });

  it("turning a pack off works even when its saved settings no longer validate", async () => {
    actAs(owner);
    const ctx = await requireTenant("shop-a");
    const lookup = async () => [{ address: "93.184.216.34", family: 4 }];
    // Saved while the address is on the site's domains (it would throw otherwise).
    await savePackForm(
      ctx,
      { packId: "fetch_json", enabled: true },
      fetchJsonForm("https://api.michi.example"),
      { lookup, allowHosts: [] },
    );
    await t.handle.platform.update(tenants).set({ siteDomains: [] }).where(eq(tenants.id, shopA.id));
    const off = savePackForm(
      ctx,
      { packId: "fetch_json", enabled: false },
      fetchJsonForm("https://api.michi.example"),
      { lookup, allowHosts: [] },
    );
    await expect(off).rejects.toMatchObject({
      code: "invalid_input",
      message: expect.stringMatching(/turned off/),
      details: { fieldErrors: { baseUrl: [expect.stringMatching(/not on your site's domains/)] } },
    });
    const saved = await row("fetch_json");
    expect(saved?.enabled).toBe(false);
    expect(saved?.config.baseUrl).toBe("https://api.michi.example");
    expect((await audits()).some((e) => e.action === "pack.disabled")).toBe(true);
    await t.handle.platform
      .update(tenants)
      .set({ siteDomains: ["michi.example"] })
      .where(eq(tenants.id, shopA.id));
  });

  it("checks DNS at save time: an on-site name resolving to a private address is refused", async () => {
    actAs(owner);
    const ctx = await requireTenant("shop-a");
    const state = savePackForm(
      ctx,
      { packId: "fetch_json", enabled: true },
      fetchJsonForm("https://intranet.michi.example"),
      { lookup: async () => [{ address: "10.0.0.5", family: 4 }], allowHosts: [] },
    );
    await expect(state).rejects.toMatchObject({
      details: { fieldErrors: { baseUrl: ["This host resolves to a private address"] } },
    });
    expect((await row("fetch_json"))?.config.baseUrl).toBe("https://api.michi.example");
  });
});

describe("the Test button", () => {
  it("runs a pack with its saved settings and returns what the model sees, its size and the chip", async () => {
    actAs(owner);
    const saved = await savePackAction(
      "shop-a",
      {},
      form({ packId: "get_business_info", enabled: "on", [fieldName("phone")]: "+1 555 0100" }),
    );
    expect(saved.ok).toBe(true);
    const state = await testPackAction(
      "shop-a",
      {},
      form({ packId: "get_business_info", [argName("topic")]: "phone" }),
    );
    expect(state.ok).toBe(true);
    expect(JSON.parse(state.data!.result!)).toEqual({ phone: "+1 555 0100" });
    expect(Number(state.data!.chars)).toBe(state.data!.result!.length);
    expect(Number(state.data!.tokens)).toBeGreaterThan(0);
    expect(state.data!.label).toBe("Looking up our details");
    // The list remembers it.
    const view = (await loadPackGroups(await requireTenant("shop-a")))
      .flatMap((g) => g.packs)
      .find((p) => p.id === "get_business_info");
    expect(view?.lastTest?.outcome).toBe("ok");
  });

  it("says in plain words what is missing or not allowed, and runs nothing; refuses viewers", async () => {
    actAs(owner);
    const missing = await testPackAction("shop-a", {}, form({ packId: "get_business_info" }));
    expect(missing).toMatchObject({
      ok: false,
      fieldErrors: { [argName("topic")]: 'Fill in "Topic": the tool needs it.' },
    });
    expect(JSON.stringify(missing)).not.toMatch(/must have required property/);
    const bad = await testPackAction(
      "shop-a",
      {},
      form({ packId: "get_business_info", [argName("topic")]: "recipes" }),
    );
    expect(bad.fieldErrors?.[argName("topic")]).toBe('Pick one of the listed values for "Topic".');
    actAs(viewer);
    const refused = await testPackAction(
      "shop-a",
      {},
      form({ packId: "get_business_info", [argName("topic")]: "phone" }),
    );
    expect(refused).toMatchObject({ ok: false, message: expect.stringMatching(/Only an admin or owner/) });
  });
});

describe("the list's on/off switch", () => {
  it("turns a configured pack on and off with an audit entry; a pack that needs settings stays off", async () => {
    actAs(owner);
    const off = await togglePackAction("shop-a", {}, form({ packId: "get_business_info", enabled: "false" }));
    expect(off).toMatchObject({ ok: true, message: "Business details is now off." });
    expect((await row("get_business_info"))?.enabled).toBe(false);
    const on = await togglePackAction("shop-a", {}, form({ packId: "get_business_info", enabled: "true" }));
    expect(on).toMatchObject({ ok: true, message: "Business details is now on." });
    expect((await row("get_business_info"))?.enabled).toBe(true);
    expect((await audits()).filter((e) => e.target === "get_business_info").map((e) => e.action)).toEqual(
      expect.arrayContaining(["pack.disabled", "pack.enabled"]),
    );
    // check_stock needs its shop's address first.
    const refused = await togglePackAction("shop-a", {}, form({ packId: "check_stock", enabled: "true" }));
    expect(refused).toMatchObject({ ok: false, message: expect.stringMatching(/needs its settings/) });
    expect((await row("check_stock"))?.enabled ?? false).toBe(false);
    actAs(viewer);
    const viewerTry = await togglePackAction(
      "shop-a",
      {},
      form({ packId: "get_business_info", enabled: "false" }),
    );
    expect(viewerTry.ok).toBe(false);
    expect((await row("get_business_info"))?.enabled).toBe(true);
  });
});

describe("secrets are write-only", () => {
  // A pack an operator might add: the same generic renderer and save path serve it.
  const keyed = definePack({
    id: "keyed_api",
    label: "Asking our booking system",
    definition: {
      type: "function",
      function: {
        name: "keyed_api",
        description: "Bookings.",
        parameters: { type: "object", properties: {} },
      },
    },
    configFields: [
      { key: "account", label: "Account", type: "text", required: true },
      { key: "apiKey", label: "API key", type: "secret", required: true },
    ],
    async run() {
      return {};
    },
    category: "Bookings",
  });
  const PLAIN = "sk-live-0123456789abcdef";
  const deps = { packs: [keyed] };

  beforeEach(() => actAs(owner));

  it("stores the secret sealed, shows only 'set', and never puts it in page data, HTML or the audit log", async () => {
    const ctx = await requireTenant("shop-a");
    const state = await savePackForm(
      ctx,
      { packId: "keyed_api", enabled: true },
      form({ [fieldName("account")]: "acme", [fieldName("apiKey")]: PLAIN }),
      deps,
    );
    expect(state.changed.length).toBeGreaterThan(0);
    const stored = await row("keyed_api");
    expect(Object.keys(stored!.secrets)).toEqual(["apiKey"]);
    expect(JSON.stringify(stored)).not.toContain(PLAIN);

    const groups = await loadPackGroups(ctx, deps);
    const view = groups[0]!.packs[0]!;
    expect(view.secrets).toEqual({ apiKey: { set: true, setAt: stored!.secrets.apiKey!.setAt } });
    expect(JSON.stringify(groups)).not.toContain(PLAIN);
    expect(JSON.stringify(groups)).not.toContain(stored!.secrets.apiKey!.ct);

    const html = renderToStaticMarkup(
      createElement(PackCard, {
        pack: view,
        canEdit: true,
        saveAction: async () => ({}),
        timeZone: "Asia/Tokyo",
      }),
    );
    expect(html).toContain(formatSetOn(stored!.secrets.apiKey!.setAt, "Asia/Tokyo"));
    expect(html).not.toContain(PLAIN);

    const entry = (await audits()).find((e) => e.action === "pack.config_saved" && e.target === "keyed_api");
    expect(entry?.details).toEqual({ fields: ["account", "apiKey"] });
    expect(JSON.stringify(await audits())).not.toContain(PLAIN);
  });

  it("an empty secret input keeps the stored value; a required secret cannot be cleared", async () => {
    const ctx = await requireTenant("shop-a");
    const before = (await row("keyed_api"))!.secrets.apiKey;
    const keep = await savePackForm(
      ctx,
      { packId: "keyed_api", enabled: true },
      form({ [fieldName("account")]: "acme-2", [fieldName("apiKey")]: "" }),
      deps,
    );
    expect(keep.changed).toEqual(["account"]);
    expect((await row("keyed_api"))!.secrets.apiKey).toEqual(before);
    const clear = savePackForm(
      ctx,
      { packId: "keyed_api", enabled: true },
      form({ [fieldName("account")]: "acme-2", [secretClearName("apiKey")]: "1" }),
      deps,
    );
    await expect(clear).rejects.toMatchObject({
      details: { fieldErrors: { apiKey: ["This field is required"] } },
    });
    expect((await row("keyed_api"))!.secrets.apiKey).toEqual(before);
  });

  it("the real Tools list shows every built-in pack with its status, and a pack's page is read-only for a viewer", async () => {
    actAs(viewer);
    const { default: ToolsPage } = await import("@/app/(admin)/admin/[tenant]/tools/page");
    const list = renderToStaticMarkup(
      await ToolsPage({ params: Promise.resolve({ tenant: "shop-a" }), searchParams: Promise.resolve({}) }),
    );
    expect(list).toContain('data-pack="fetch_json"');
    expect(list).toContain("For every business");
    expect(list).toContain('href="/admin/shop-a/tools/fetch_json"');
    expect(list).toContain("Your own JSON data");
    expect(list).toContain("Configured");
    expect(list).toContain("Needs settings");
    // One line per pack: no settings form on the list.
    expect(list).not.toContain("<form");

    const { default: PackPage } = await import("@/app/(admin)/admin/[tenant]/tools/[packId]/page");
    const html = renderToStaticMarkup(
      await PackPage({ params: Promise.resolve({ tenant: "shop-a", packId: "fetch_json" }) }),
    );
    expect(html).not.toMatch(/<button type="submit"[^>]*>Save<\/button>/);
    expect(html).toContain("only admins and owners can change them");
    expect(html).toMatch(/<fieldset disabled=""/);
    expect(html).toContain('value="https://api.michi.example"');
    expect(html).not.toContain("Test this tool");
  });

  it("an old ?pack= link lands on that pack's page; an unknown pack id is a 404", async () => {
    actAs(owner);
    const { default: ToolsPage } = await import("@/app/(admin)/admin/[tenant]/tools/page");
    await expect(
      ToolsPage({
        params: Promise.resolve({ tenant: "shop-a" }),
        searchParams: Promise.resolve({ pack: "get_menu" }),
      }),
    ).rejects.toMatchObject({ digest: expect.stringContaining("/admin/shop-a/tools/get_menu") });
    const { default: PackPage } = await import("@/app/(admin)/admin/[tenant]/tools/[packId]/page");
    await expect(
      PackPage({ params: Promise.resolve({ tenant: "shop-a", packId: "no_such_pack" }) }),
    ).rejects.toMatchObject({ digest: expect.stringContaining("404") });
  });
});
