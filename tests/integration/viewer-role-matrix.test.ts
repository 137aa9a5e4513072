import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { installTestDb } from "../support/admin-env";
import type { TestDb } from "../support/db";
import { buildWorld, snapshotAll, type World } from "./cross-tenant/harness";
import { viewerCases } from "./viewer-role/cases";
import { discoverContextUseCases, ROOT } from "./viewer-role/discover";

// Roles are checked where the work is done. Every use case that acts for a caller is found in the source
// (viewer-role/discover.ts) and must have an entry in viewer-role/cases.ts: a viewer calling a mutating one
// directly, as a script or a new route would, is refused with the role refusal and nothing changes.

const { OPERATOR_ONLY, roleRefusal } = await import("@/lib/auth/access");

const discovered = discoverContextUseCases();

type AnyFn = (...args: unknown[]) => Promise<unknown>;
async function useCase(key: string): Promise<AnyFn> {
  const [file, name] = key.split("#") as [string, string];
  const mod = (await import(/* @vite-ignore */ path.join(ROOT, file))) as Record<string, unknown>;
  const fn = mod[name];
  if (typeof fn !== "function") throw new Error(`${key} is not an exported function`);
  return fn as AnyFn;
}

let t: TestDb;
let w: World;

beforeAll(async () => {
  t = await installTestDb();
  w = await buildWorld(t.handle);
});
afterAll(() => t?.close());

/** A's viewer as the guard would hand them over: a member of A with the viewer role, no operator. */
function viewerOfA() {
  const v = w.a.viewer;
  const user = { id: v.id, email: v.email, name: v.name, isOperator: false, mustChangePassword: false };
  return { user, tenant: w.a.tenant, role: "viewer" as const, db: w.db };
}

describe("coverage of the use cases", () => {
  it("discovers the use cases that act for a caller (sanity check of the discovery itself)", () => {
    expect(discovered).toContain("src/lib/team/members.ts#changeRole");
    expect(discovered).toContain("src/lib/tenants/operator.ts#setTenantStatus");
    expect(discovered).toContain("src/lib/webhooks/endpoints.ts#createWebhookEndpoint");
  });

  it("has a case for every use case that acts for a caller", () => {
    const missing = discovered.filter((k) => !viewerCases[k]);
    expect(missing, "add these to tests/integration/viewer-role/cases.ts").toEqual([]);
  });

  it("has no case for a use case that no longer exists", () => {
    const known = new Set(discovered);
    expect(Object.keys(viewerCases).filter((k) => !known.has(k))).toEqual([]);
  });
});

describe("a viewer calling a use case directly", () => {
  for (const [key, c] of Object.entries(viewerCases)) {
    if (c.kind === "own-account") continue;

    if (c.kind === "read-only") {
      it(`${key}: reads only`, async () => {
        const before = await snapshotAll(t.handle);
        await (await useCase(key))(viewerOfA(), ...c.args(w));
        expect(await snapshotAll(t.handle)).toEqual(before);
      });
      continue;
    }

    it(`${key}: refused to a viewer, nothing changes`, async () => {
      const before = await snapshotAll(t.handle);
      const fn = await useCase(key);
      const ctx = c.min === "operator" ? { user: viewerOfA().user, db: w.db } : viewerOfA();
      const refusal = c.min === "operator" ? OPERATOR_ONLY : roleRefusal("viewer", c.min);
      await expect(fn(ctx, ...c.args(w))).rejects.toMatchObject({ code: "forbidden", message: refusal });
      expect(await snapshotAll(t.handle)).toEqual(before);
    });
  }
});
