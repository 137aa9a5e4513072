import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { installTestDb } from "../support/admin-env";
import { actAs } from "../support/admin-mocks";
import { makeTenant, makeUser } from "../support/admin-world";
import type { TestDb } from "../support/db";

vi.mock("@/lib/auth/claims", () => import("../support/admin-mocks").then((m) => m.claimsModule));
vi.mock("next/headers", () => import("../support/admin-mocks").then((m) => m.headersModule));
vi.mock("next/cache", () => import("../support/admin-mocks").then((m) => m.cacheModule));

process.env.MICHI_MODELS = "small-model,large-model";

const { saveBotAction } = await import("@/app/(admin)/admin/[tenant]/bot/actions");
const { saveDomainsAction } = await import("@/app/(admin)/admin/[tenant]/embed/actions");
const { parseDomainLines } = await import("@/lib/embed/site-domains");
const { botFormValues } = await import("@/lib/bot/form");
const { auditLog, tenants } = await import("@/lib/db/schema");

let t: TestDb;
type U = Awaited<ReturnType<typeof makeUser>>;
let owner: U;
let viewer: U;
let outsider: U;
let shopA: { id: string };

beforeAll(async () => {
  t = await installTestDb();
  owner = await makeUser(t.handle, "owner@bot.test");
  viewer = await makeUser(t.handle, "viewer@bot.test");
  outsider = await makeUser(t.handle, "owner@elsewhere.test");
  shopA = await makeTenant(t.handle, "shop-a", [
    [owner, "owner"],
    [viewer, "viewer"],
  ]);
  await makeTenant(t.handle, "shop-b", [[outsider, "owner"]]);
});
afterAll(() => t?.close());

function form(v: Record<string, string>): FormData {
  const fd = new FormData();
  for (const [k, val] of Object.entries(v)) fd.append(k, val);
  return fd;
}

const valid = {
  displayName: "Michi",
  greeting: "Hi! Ask me anything about the café.",
  instructions: "Be brief and friendly.",
  model: "large-model",
  language: "ja",
  color: "#0F766E",
  position: "left",
  avatarUrl: "https://michi.example/cat.png",
  starter1: "Are you open now?",
  starter2: "",
  starter3: "Do you have cake?",
  starter4: "",
};

const tenantRow = async () =>
  (await t.handle.platform.select().from(tenants).where(eq(tenants.id, shopA.id)))[0]!;
const audits = () => t.handle.platform.select().from(auditLog).where(eq(auditLog.tenantId, shopA.id));

describe("the Bot form", () => {
  it("reports every invalid setting next to its field, keeps what was typed and stores nothing", async () => {
    actAs(owner);
    const state = await saveBotAction(
      "shop-a",
      {},
      form({
        ...valid,
        displayName: "   ",
        instructions: "x".repeat(4001),
        model: "gpt-unknown",
        language: "klingon",
        color: "teal",
        position: "middle",
        avatarUrl: "http://michi.example/cat.png",
        starter2: "y".repeat(81),
      }),
    );
    expect(state.ok).toBe(false);
    expect(state.fieldErrors).toEqual({
      displayName: "Enter the name visitors see on the chat",
      instructions: "The instructions can be at most 4,000 characters",
      model: "Choose one of the models offered",
      language: "Choose a language from the list",
      color: "Enter a colour as # and six hex digits, like #0f766e",
      position: "Choose right or left",
      avatarUrl: "The avatar address must start with https://",
      starter2: "A starter prompt can be at most 80 characters",
    });
    expect(state.values).toMatchObject({
      color: "teal",
      model: "gpt-unknown",
      starter1: "Are you open now?",
    });
    expect((await tenantRow()).bot).toEqual({});
    expect(await audits()).toHaveLength(0);
  });

  it("stores valid settings, normalised, and audits the names of the settings that changed", async () => {
    actAs(owner);
    const state = await saveBotAction("shop-a", {}, form(valid));
    expect(state).toMatchObject({ ok: true, message: "Bot settings saved." });
    expect((await tenantRow()).bot).toEqual({
      displayName: "Michi",
      greeting: "Hi! Ask me anything about the café.",
      instructions: "Be brief and friendly.",
      model: "large-model",
      language: "ja",
      color: "#0f766e",
      position: "left",
      avatarUrl: "https://michi.example/cat.png",
      starters: ["Are you open now?", "Do you have cake?"],
    });
    const [entry] = await audits();
    expect(entry).toMatchObject({ action: "bot.settings_saved", actorUserId: owner.id });
    expect(entry!.details).toEqual({
      fields: [
        "avatarUrl",
        "color",
        "displayName",
        "greeting",
        "instructions",
        "language",
        "model",
        "position",
        "starters",
      ],
    });
    expect(JSON.stringify(entry)).not.toContain("Be brief");
  });

  it("audits only what changed; a short colour is expanded; blank optional settings are removed", async () => {
    actAs(owner);
    const state = await saveBotAction(
      "shop-a",
      {},
      form({ ...valid, color: "#AbC", avatarUrl: "", model: "" }),
    );
    expect(state.ok).toBe(true);
    const bot = (await tenantRow()).bot;
    expect(bot.color).toBe("#aabbcc");
    expect(bot).not.toHaveProperty("avatarUrl");
    expect(bot).not.toHaveProperty("model");
    const latest = (await audits()).find((e) => (e.details as { fields: string[] }).fields.length === 3);
    expect(latest?.details).toEqual({ fields: ["avatarUrl", "color", "model"] });
  });

  it("refuses a viewer and a member of another business; nothing changes", async () => {
    const before = (await tenantRow()).bot;
    const count = (await audits()).length;
    actAs(viewer);
    const refused = await saveBotAction("shop-a", {}, form({ ...valid, displayName: "Viewer bot" }));
    expect(refused).toMatchObject({ ok: false, message: expect.stringMatching(/Only an admin or owner/) });
    actAs(outsider);
    const stranger = await saveBotAction("shop-a", {}, form({ ...valid, displayName: "Stranger bot" }));
    expect(stranger).toMatchObject({ ok: false, message: expect.stringMatching(/not a member/) });
    expect((await tenantRow()).bot).toEqual(before);
    expect(await audits()).toHaveLength(count);
  });
});

describe("site domains", () => {
  it("normalises entries: punycode, lower case, origins, duplicates and blank lines dropped", () => {
    expect(
      parseDomainLines("Michi-Cafe.com\n\nhttp://localhost:5173/\nmichi-cafe.com.\nbücher.example"),
    ).toEqual({
      ok: true,
      entries: ["michi-cafe.com", "http://localhost:5173", "xn--bcher-kva.example"],
    });
  });

  it("gives each faulty line its own message and stores nothing", async () => {
    actAs(owner);
    const state = await saveDomainsAction(
      "shop-a",
      {},
      form({ siteDomains: "michi-cafe.com\nlocalhost\nhttps://shop.example/path\nftp://x.example" }),
    );
    expect(state.ok).toBe(false);
    expect(state.fieldErrors).toEqual({
      siteDomains: "3 lines need fixing.",
      "siteDomains.line2": "Line 2: Enter a full domain name such as michi-cafe.com",
      "siteDomains.line3": "Line 3: Enter only the origin, without a path (e.g. https://shop.example.com)",
      "siteDomains.line4": "Line 4: Only http:// and https:// origins are allowed",
    });
    expect(state.values?.siteDomains).toContain("localhost");
    expect((await tenantRow()).siteDomains).toEqual([]);
  });

  it("refuses more than 20 entries", () => {
    const many = Array.from({ length: 21 }, (_, i) => `d${i}.example`).join("\n");
    expect(parseDomainLines(many)).toMatchObject({ ok: false, message: expect.stringMatching(/at most 20/) });
  });

  it("saves the list and audits which domains were added and removed", async () => {
    actAs(owner);
    expect(
      await saveDomainsAction("shop-a", {}, form({ siteDomains: "michi-cafe.com\nold.example" })),
    ).toMatchObject({
      ok: true,
    });
    expect(
      await saveDomainsAction("shop-a", {}, form({ siteDomains: "michi-cafe.com\nnew.example" })),
    ).toMatchObject({
      ok: true,
    });
    expect((await tenantRow()).siteDomains).toEqual(["michi-cafe.com", "new.example"]);
    const entries = (await audits()).filter((e) => e.action === "site.domains_changed");
    expect(entries.map((e) => e.details)).toEqual(
      expect.arrayContaining([
        { added: ["michi-cafe.com", "old.example"], removed: [] },
        { added: ["new.example"], removed: ["old.example"] },
      ]),
    );
  });

  it("refuses a viewer's forged save", async () => {
    actAs(viewer);
    const state = await saveDomainsAction("shop-a", {}, form({ siteDomains: "evil.example" }));
    expect(state.ok).toBe(false);
    expect((await tenantRow()).siteDomains).toEqual(["michi-cafe.com", "new.example"]);
  });
});

describe("the Bot form's figure check", () => {
  it("stores the owner's choice, refuses any other and starts from mark", async () => {
    actAs(owner);
    expect(botFormValues((await tenantRow()).bot).figureCheck).toBe("mark");
    const refused = await saveBotAction("shop-a", {}, form({ ...valid, figureCheck: "sometimes" }));
    expect(refused.ok).toBe(false);
    expect(refused.ok === false && refused.fieldErrors?.figureCheck).toBe(
      "Choose what the bot does with a figure it cannot confirm",
    );
    const saved = await saveBotAction("shop-a", {}, form({ ...valid, figureCheck: "hold" }));
    expect(saved.ok).toBe(true);
    expect((await tenantRow()).bot.figureCheck).toBe("hold");
    await saveBotAction("shop-a", {}, form({ ...valid, figureCheck: "mark" }));
    expect((await tenantRow()).bot.figureCheck).toBeUndefined();
  });
});
