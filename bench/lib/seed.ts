import path from "node:path";
import { eq } from "drizzle-orm";
import { createDb, type DbHandle } from "../../src/lib/db/client";
import { migrate } from "../../src/lib/db/migrate";
import { createTenant } from "../../src/lib/db/queries/tenants";
import { packConfigs, tenants } from "../../src/lib/db/schema";
import { CATALOGUE_FIELDS, EVENTS_FIELDS } from "./payloads";
import type { BenchDb } from "./servers";

// The tenants of a bench run, seeded before the server starts (with PGlite the server then owns the data
// directory alone). Each has fetch_json enabled against the world's https site, as an admin would set it up.

export const KEYS = {
  /** The chat overhead, streams and fault benchmarks: a small events feed per turn. */
  chat: "wk_bench_chat_000000001",
  /** The token benchmark: a ~200 KB product catalogue. */
  tokens: "wk_bench_tokens_0000001",
} as const;

export async function openDb(db: BenchDb, poolMax = 4): Promise<DbHandle> {
  return db.kind === "pg"
    ? createDb({ url: db.url, poolMax })
    : createDb({ dataDir: path.join(db.dataDir, "pglite") });
}

async function tenantWithFetchJson(
  handle: DbHandle,
  slug: string,
  widgetKey: string,
  config: Record<string, unknown>,
): Promise<string> {
  const row = await createTenant(handle.platform, {
    slug,
    name: slug === "bench-chat" ? "Bench Café" : "Trailhead Outfitters",
    bot: { displayName: "Michi", greeting: "Hello!" },
  });
  await handle.platform.update(tenants).set({ widgetKey }).where(eq(tenants.id, row.id));
  await handle.forTenant(row.id, (tx) =>
    tx.insert(packConfigs).values({ tenantId: row.id, packId: "fetch_json", enabled: true, config }),
  );
  return row.id;
}

export async function seedBench(
  db: BenchDb,
  fixtureOrigin: string,
): Promise<{ chat: string; tokens: string }> {
  const handle = await openDb(db);
  try {
    await migrate(handle);
    const chat = await tenantWithFetchJson(handle, "bench-chat", KEYS.chat, {
      baseUrl: fixtureOrigin,
      path: "/api/events.json",
      fields: EVENTS_FIELDS,
      maxItems: 10,
      whenToUse: "Use this to answer questions about upcoming events and workshops.",
    });
    const tokens = await tenantWithFetchJson(handle, "bench-tokens", KEYS.tokens, {
      baseUrl: fixtureOrigin,
      path: "/api/catalogue.json",
      fields: CATALOGUE_FIELDS,
      maxItems: 10,
      whenToUse: "Use this to answer questions about products, prices and what is in stock.",
    });
    return { chat, tokens };
  } finally {
    await handle.close();
  }
}
