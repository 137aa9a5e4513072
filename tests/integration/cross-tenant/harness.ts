import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { eq, type SQL, sql } from "drizzle-orm";
import type { DbHandle } from "@/lib/db/client";
import { rowsOf } from "@/lib/db/client";
import { audit } from "@/lib/db/queries/audit";
import { conversations, messages, packConfigs, tenants } from "@/lib/db/schema";
import { makeTenant, makeUser } from "../../support/admin-world";

// The cross-tenant matrix: what exists (discovered from the source tree), what each case file says about
// how to forge a request at another tenant, and how to tell that nothing changed.
//
// To cover a new server action, route or page with params beyond [tenant], add an entry to a
// `*.cases.ts` file next to this one (any file name; each area may keep its own). The matrix fails for
// anything discovered without a case.

export const ROOT = path.resolve(import.meta.dirname, "../../..");

export type Side = {
  tenant: typeof tenants.$inferSelect;
  owner: Awaited<ReturnType<typeof makeUser>>;
  viewer: Awaited<ReturnType<typeof makeUser>>;
  conversationId: string;
  /** Ids a case file's setup adds (e.g. a pack id only B uses). */
  extra: Record<string, string>;
};
export type World = { db: DbHandle; a: Side; b: Side; operator: Awaited<ReturnType<typeof makeUser>> };

export type FormSpec = Record<string, string | string[]>;

export type ActionCase =
  /** A tenantAction: called with B's slug, then with A's slug and B's ids (from `form(b)`). */
  | { kind: "tenant"; form: (target: Side, w: World) => FormSpec }
  /** An operatorAction: called by A's owner (not an operator) with a form aimed at B. */
  | { kind: "operator"; form: (target: Side, w: World) => FormSpec }
  /**
   * Keyed by a link's token rather than a tenant (accepting an invitation, resetting a password): the token is
   * the permission. A's owner submits each form (forged tokens, B's ids where a token belongs) and must be
   * refused, or sent elsewhere, while nothing anywhere changes.
   */
  | { kind: "link"; forms: (w: World) => FormSpec[]; why: string }
  /**
   * A page's view fetched with a link's token in a POST body (the token travels in the link's fragment):
   * each forged form must render nothing of B (`expect` gets the returned element) and change nothing.
   */
  | { kind: "view"; forms: (w: World) => FormSpec[]; expect: (value: unknown, w: World) => void; why: string }
  /** Not tenant-scoped at all (sign-in, sign-up, sign-out); say why. */
  | { kind: "public"; why: string };

export type PageOutcome =
  | { kind: "value"; value: unknown }
  | { kind: "redirect"; url: string }
  | { kind: "not_found" }
  | { kind: "error"; error: unknown };

export type PageCase = {
  /** Param sets that must all end in 404 for A's owner, e.g. B's slug, or A's slug with B's record id. */
  params: (w: World) => Record<string, string>[];
  /** For pages that are not about one tenant (e.g. /admin): what A's owner must get instead of a 404. */
  expect?: (outcome: PageOutcome, w: World) => void;
};
export type RouteCase = {
  params: (w: World) => Record<string, string>[];
  body?: (w: World) => unknown;
  query?: (w: World) => string;
};

/**
 * A widget route (src/app/api/widget/[key]/…): called with tenant A's visitor token at B's key, and at A's key
 * with B's ids; either way it must refuse and leave B untouched. "public": reachable by anyone by design.
 */
export type WidgetRouteCase =
  | {
      kind: "visitor";
      /** Params besides `key` (e.g. B's conversation id). */
      params?: (target: Side) => Record<string, string>;
      body?: (target: Side) => unknown;
    }
  | { kind: "public"; why: string };

export type MatrixCases = {
  /** Adds rows for A and B before the probes (both sides, so "A's slug with B's id" means something). */
  setup?: (w: World) => Promise<void>;
  /** Keyed "src/app/…/actions.ts#exportName". */
  actions?: Record<string, ActionCase>;
  /** Keyed "src/app/…/page.tsx"; pages whose only param is [tenant] need no entry. */
  pages?: Record<string, PageCase>;
  /** Keyed "src/app/api/admin/…/route.ts#METHOD"; routes whose only param is [tenant] need no entry. */
  routes?: Record<string, RouteCase>;
  /** Keyed "src/app/api/widget/…/route.ts#METHOD"; every widget route needs an entry. */
  widget?: Record<string, WidgetRouteCase>;
};

// ---------------------------------------------------------------------------------------------------------
// Discovery

function walk(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) walk(full, out);
    else out.push(full);
  }
  return out;
}

const rel = (file: string) => path.relative(ROOT, file).split(path.sep).join("/");

/**
 * Every admin page and layout (src/app/(admin)/**\/page.tsx and layout.tsx), and every other page that takes
 * a key from its URL: a forged key must show nothing of anyone. (The invitation and reset pages take theirs
 * from the link's fragment through a POST: their view actions are "view" cases.)
 */
export function discoverPages(): string[] {
  const admin = walk(path.join(ROOT, "src/app/(admin)")).filter((f) => /[/\\](page|layout)\.tsx$/.test(f));
  const keyed = walk(path.join(ROOT, "src/app"))
    .filter((f) => !f.includes(`${path.sep}(admin)${path.sep}`))
    .filter((f) => /[/\\]page\.tsx$/.test(f) && /\[[^\]]+\]/.test(rel(f)));
  return [...admin, ...keyed].map(rel).sort();
}

/** Every admin route handler: src/app/api/admin/**\/route.ts. */
export function discoverRoutes(): string[] {
  return walk(path.join(ROOT, "src/app/api/admin"))
    .filter((f) => /[/\\]route\.ts$/.test(f))
    .map(rel)
    .sort();
}

/** Every widget route handler: src/app/api/widget/**\/route.ts. */
export function discoverWidgetRoutes(): string[] {
  return walk(path.join(ROOT, "src/app/api/widget"))
    .filter((f) => /[/\\]route\.ts$/.test(f))
    .map(rel)
    .sort();
}

/** Every file in src whose first statement is the "use server" directive. */
export function discoverActionFiles(): string[] {
  return walk(path.join(ROOT, "src"))
    .filter((f) => /\.(ts|tsx)$/.test(f))
    .filter((f) => /^(?:\s|\/\/[^\n]*\n|\/\*[\s\S]*?\*\/)*["']use server["']/.test(readFileSync(f, "utf8")))
    .map(rel)
    .sort();
}

/** Dynamic segment names of a route file: src/app/(admin)/admin/[tenant]/x/[id]/page.tsx → ["tenant", "id"]. */
export function dynamicParams(file: string): string[] {
  return [...file.matchAll(/\[(?:\.\.\.)?([^\]]+)\]/g)].map((m) => m[1]!);
}

export const HTTP_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"] as const;

// ---------------------------------------------------------------------------------------------------------
// The world: two tenants with the same shape of data, and an operator who is a member of neither.

async function side(db: DbHandle, slug: string): Promise<Side> {
  const owner = await makeUser(db, `owner@${slug}.test`);
  const viewer = await makeUser(db, `viewer@${slug}.test`);
  const tenant = await makeTenant(
    db,
    slug,
    [
      [owner, "owner"],
      [viewer, "viewer"],
    ],
    { siteDomains: [`${slug}.example`] },
  );
  const conversationId = await db.forTenant(tenant.id, async (tx) => {
    await tx
      .update(tenants)
      .set({ bot: { displayName: `Bot of ${slug}`, greeting: "Hello" } })
      .where(eq(tenants.id, tenant.id));
    await tx.insert(packConfigs).values({
      tenantId: tenant.id,
      packId: "get_business_info",
      enabled: true,
      config: { address: `1 ${slug} street`, phone: "+1 555 0100" },
    });
    const [c] = await tx
      .insert(conversations)
      .values({ tenantId: tenant.id, visitorId: `v-${slug}` })
      .returning();
    await tx
      .insert(messages)
      .values({ tenantId: tenant.id, conversationId: c!.id, role: "user", content: "hi" });
    await audit(tx, {
      tenantId: tenant.id,
      actor: { id: owner.id, email: owner.email },
      action: "seed.entry",
    });
    return c!.id;
  });
  return { tenant, owner, viewer, conversationId, extra: {} };
}

export async function buildWorld(db: DbHandle): Promise<World> {
  const operator = await makeUser(db, "operator@platform.test", { isOperator: true });
  return { db, a: await side(db, "tenant-a"), b: await side(db, "tenant-b"), operator };
}

// ---------------------------------------------------------------------------------------------------------
// Snapshots: "changes nothing" compared row by row.

const IGNORED_TABLES = new Set(["rate_limits"]);

async function tables(db: DbHandle): Promise<{ name: string; tenantScoped: boolean }[]> {
  const rows = await rowsOf<{ name: string; scoped: boolean }>(
    db.platform,
    sql`select t.table_name as name,
               exists(select 1 from information_schema.columns c
                      where c.table_schema = 'public' and c.table_name = t.table_name and c.column_name = 'tenant_id') as scoped
        from information_schema.tables t
        where t.table_schema = 'public' and t.table_type = 'BASE TABLE'
        order by t.table_name`,
  );
  return rows
    .filter((r) => !IGNORED_TABLES.has(r.name))
    .map((r) => ({ name: r.name, tenantScoped: r.scoped }));
}

/** Every row of every table, as sorted JSON per table. */
export async function snapshotAll(db: DbHandle): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const t of await tables(db)) {
    const rows = await rowsOf<{ j: string }>(
      db.platform,
      sql`select row_to_json(x)::text as j from ${sql.identifier(t.name)} x`,
    );
    out[t.name] = rows.map((r) => r.j).sort();
  }
  return out;
}

/** Everything that belongs to tenant B: its row, rows with its tenant_id, its members' user rows and photos. */
export async function snapshotTenant(db: DbHandle, s: Side): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const t of await tables(db)) {
    let query: SQL;
    if (t.name === "tenants")
      query = sql`select row_to_json(x)::text as j from tenants x where x.id = ${s.tenant.id}`;
    else if (t.name === "users")
      query = sql`select row_to_json(x)::text as j from users x where x.id in (${s.owner.id}, ${s.viewer.id})`;
    else if (t.name === "user_avatars")
      query = sql`select row_to_json(x)::text as j from user_avatars x where x.user_id in (${s.owner.id}, ${s.viewer.id})`;
    else if (t.tenantScoped)
      query = sql`select row_to_json(x)::text as j from ${sql.identifier(t.name)} x where x.tenant_id = ${s.tenant.id}`;
    else continue;
    out[t.name] = (await rowsOf<{ j: string }>(db.platform, query)).map((r) => r.j).sort();
  }
  return out;
}

export function toFormData(spec: FormSpec): FormData {
  const fd = new FormData();
  for (const [k, v] of Object.entries(spec)) {
    if (Array.isArray(v)) for (const item of v) fd.append(k, item);
    else fd.set(k, v);
  }
  return fd;
}
