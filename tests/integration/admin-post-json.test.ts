import { and, eq } from "drizzle-orm";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { installTestDb } from "../support/admin-env";
import { actAs } from "../support/admin-mocks";
import { makeTenant, makeUser } from "../support/admin-world";
import type { TestDb } from "../support/db";

vi.mock("@/lib/auth/claims", () => import("../support/admin-mocks").then((m) => m.claimsModule));
vi.mock("next/headers", () => import("../support/admin-mocks").then((m) => m.headersModule));
vi.mock("next/cache", () => import("../support/admin-mocks").then((m) => m.cacheModule));

// An operator-allowed private host, as the e2e fixture uses: it passes the url policy without DNS.
process.env.MICHI_FETCH_ALLOW_HOSTS = "fixture.test:8443";

const { savePackAction } = await import("@/app/(admin)/admin/[tenant]/tools/actions");
const { fieldName } = await import("@/lib/tools/form-data");
const { packConfigs } = await import("@/lib/db/schema");
const { openSecret } = await import("@/lib/security/secrets");

// Issue 41: post_json is saved through the same form and URL policy as fetch_json, and the platform makes
// its signing secret on the first save and shows it to the owner that once, as the webhooks page does.

let t: TestDb;
let owner: Awaited<ReturnType<typeof makeUser>>;
let shop: { id: string };

beforeAll(async () => {
  t = await installTestDb();
  owner = await makeUser(t.handle, "owner@post-json.test");
  shop = await makeTenant(t.handle, "shop-post", [[owner, "owner"]], { siteDomains: ["michi.example"] });
});
afterAll(() => t?.close());

function postJsonForm(baseUrl: string): FormData {
  const fd = new FormData();
  const v: Record<string, string> = {
    packId: "post_json",
    enabled: "on",
    [fieldName("baseUrl")]: baseUrl,
    [fieldName("path")]: "/api/orders",
    [fieldName("fields")]:
      "cake | Cake | text | required | Which cake.\ncandles | Candles | yes/no | optional | Candles?",
    [fieldName("cardTitle")]: "Order this cake?",
    [fieldName("whenToUse")]: "Use this to order a cake.",
  };
  for (const [k, val] of Object.entries(v)) fd.append(k, val);
  return fd;
}

const row = async () =>
  (
    await t.handle.platform
      .select()
      .from(packConfigs)
      .where(and(eq(packConfigs.tenantId, shop.id), eq(packConfigs.packId, "post_json")))
  )[0];

describe("saving post_json", () => {
  it("refuses a base URL off the business's domains, as fetch_json does", async () => {
    actAs(owner);
    const state = await savePackAction("shop-post", {}, postJsonForm("https://evil.example"));
    expect(state.fieldErrors?.baseUrl).toBe("This address is not on your site's domains (Site & embed)");
    expect(await row()).toBeUndefined();
  });

  it("makes the signing secret on the first save, shows it once, and keeps it sealed", async () => {
    actAs(owner);
    const first = await savePackAction("shop-post", {}, postJsonForm("https://fixture.test:8443/"));
    expect(first).toMatchObject({ ok: true });
    const secret = first.data?.secret ?? "";
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/=]{40,}$/);
    // A secret the standardwebhooks library accepts as a key.
    expect(() => new Webhook(secret).sign("id", new Date(), "{}")).not.toThrow();
    const saved = await row();
    expect(JSON.stringify(saved)).not.toContain(secret.slice(6));
    expect(
      openSecret(saved!.secrets.signingSecret!, {
        tenantId: shop.id,
        packId: "post_json",
        key: "signingSecret",
      }),
    ).toBe(secret);

    const again = await savePackAction("shop-post", {}, postJsonForm("https://fixture.test:8443/"));
    expect(again).toMatchObject({ ok: true });
    expect(again.data?.secret).toBeUndefined();
    expect((await row())!.secrets.signingSecret).toEqual(saved!.secrets.signingSecret);
  });
});
