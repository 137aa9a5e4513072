import { eq } from "drizzle-orm";
import { hashPassword } from "@/lib/auth/password";
import type { DbHandle } from "@/lib/db/client";
import { createTenant, findTenantBySlug } from "@/lib/db/queries/tenants";
import { addMembership, createUser, findUserByEmail } from "@/lib/db/queries/users";
import { saveIdentitySecret } from "@/lib/db/queries/visitor-identity";
import { packConfigs, tenants } from "@/lib/db/schema";
import { sealSecret } from "@/lib/security/secrets";
import { sealIdentitySecret } from "@/lib/security/visitor-identity";
import { seed } from "@/lib/tenants/seed";
import { E2E } from "./e2e-env";
import { ORDER_PATH } from "./e2e-fixture-routes";

// Seeds the world the e2e specs expect, before the production server starts. Specs prepare further state
// through the UI or the public API, like a user would.

async function user(db: DbHandle, email: string, password: string, name: string) {
  return (
    (await findUserByEmail(db.platform, email)) ??
    (await createUser(db.platform, { email, name, passwordHash: await hashPassword(password) }))
  );
}

async function tenant(db: DbHandle, slug: string, name: string, widgetKey: string, siteDomains: string[]) {
  const existing = await findTenantBySlug(db.platform, slug);
  if (existing) return existing;
  const row = await createTenant(db.platform, {
    slug,
    name,
    siteDomains,
    bot: {
      displayName: name,
      greeting: `Welcome to ${name}!`,
      starters: ["Are you open now?"],
      color: "#0f766e",
    },
  });
  await db.platform.update(tenants).set({ widgetKey }).where(eq(tenants.id, row.id));
  return { ...row, widgetKey };
}

/** `at` holds the origins of the world's servers, known only once they listen. */
export async function seedE2E(db: DbHandle, at: { hostPageOrigin: string; fixtureOrigin: string }) {
  await seed(
    db,
    { MICHI_ADMIN_EMAIL: E2E.operator.email, MICHI_ADMIN_PASSWORD: E2E.operator.password, MICHI_DEMO: true },
    () => "unused",
  );
  const demo = await findTenantBySlug(db.platform, "demo");
  const viewer = await user(db, E2E.viewer.email, E2E.viewer.password, "Vera Viewer");
  if (demo) await addMembership(db.platform, demo.id, viewer.id, "viewer");

  const operator = await findUserByEmail(db.platform, E2E.operator.email);
  const cafe = await tenant(db, E2E.cafe.slug, "E2E Café", E2E.cafe.widgetKey, [at.hostPageOrigin]);
  if (operator) await addMembership(db.platform, cafe.id, operator.id, "owner");
  // A viewer here too, for the Insights spec's "a viewer reads but cannot delete".
  await addMembership(db.platform, cafe.id, viewer.id, "viewer");
  await db.forTenant(cafe.id, (tx) =>
    tx
      .insert(packConfigs)
      .values({
        tenantId: cafe.id,
        packId: "get_opening_status",
        enabled: true,
        config: { baseUrl: at.fixtureOrigin },
      })
      .onConflictDoNothing(),
  );

  const visitor = await tenant(db, E2E.visitor.slug, "E2E Visitor", E2E.visitor.widgetKey, [
    at.hostPageOrigin,
  ]);
  if (operator) await addMembership(db.platform, visitor.id, operator.id, "owner");
  await db.forTenant(visitor.id, (tx) =>
    tx
      .insert(packConfigs)
      .values({
        tenantId: visitor.id,
        packId: "get_opening_status",
        enabled: true,
        config: { baseUrl: at.fixtureOrigin },
      })
      .onConflictDoNothing(),
  );

  const lab = await tenant(db, E2E.lab.slug, "E2E Lab", E2E.lab.widgetKey, [at.hostPageOrigin]);
  if (operator) await addMembership(db.platform, lab.id, operator.id, "owner");

  const packs = await tenant(db, E2E.packs.slug, "E2E Packs", E2E.packs.widgetKey, [at.hostPageOrigin]);
  if (operator) await addMembership(db.platform, packs.id, operator.id, "owner");

  // post_json on the fixture site's order endpoint, signed with a secret the spec knows (issue 41).
  const actions = await tenant(db, E2E.actions.slug, "E2E Actions", E2E.actions.widgetKey, [
    at.hostPageOrigin,
  ]);
  if (operator) await addMembership(db.platform, actions.id, operator.id, "owner");
  await db.forTenant(actions.id, (tx) =>
    tx
      .insert(packConfigs)
      .values({
        tenantId: actions.id,
        packId: "post_json",
        enabled: true,
        config: {
          baseUrl: at.fixtureOrigin,
          path: ORDER_PATH,
          fields: [
            "cake | Cake | text | required | Which cake the visitor wants.",
            "pickupDate | Pick-up date | text | required | The pick-up day as YYYY-MM-DD.",
            "candles | Candles | yes/no | optional | Whether to add candles.",
          ],
          cardTitle: "Order this cake?",
          responseFields: ["reference"],
          whenToUse: "Use this when the visitor wants to order a cake for pick-up.",
        },
        secrets: {
          signingSecret: sealSecret(E2E.actionSecret, {
            tenantId: actions.id,
            packId: "post_json",
            key: "signingSecret",
          }),
        },
      })
      .onConflictDoNothing(),
  );

  // A business whose site signs its visitors' identity tokens (issue 41 item 4).
  const verified = await tenant(db, E2E.verified.slug, "E2E Verified", E2E.verified.widgetKey, [
    at.hostPageOrigin,
  ]);
  if (operator) await addMembership(db.platform, verified.id, operator.id, "owner");
  await db.forTenant(verified.id, (tx) =>
    saveIdentitySecret(tx, verified.id, sealIdentitySecret(E2E.identitySecret, verified.id)),
  );

  const otherOwner = await user(db, E2E.otherOwner.email, E2E.otherOwner.password, "Olga Other");
  const other = await tenant(db, E2E.other.slug, "Other Shop", E2E.other.widgetKey, ["other-shop.example"]);
  await addMembership(db.platform, other.id, otherOwner.id, "owner");
}
