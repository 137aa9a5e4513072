import "server-only";
import type { SQL } from "drizzle-orm";
import type { PgDatabase, PgQueryResultHKT, PgTransaction } from "drizzle-orm/pg-core";
import { isUuid } from "@/shared/parse";
import * as schema from "./schema";

export type Schema = typeof schema;
/** drizzle's Postgres query API, over `pg` for both databases. */
export type Db = PgDatabase<PgQueryResultHKT, Schema>;
export type Tx = PgTransaction<PgQueryResultHKT, Schema>;
/** A transaction in which RLS limits every statement to one tenant. */
export type TenantTx = Tx & { readonly __tenantScoped: true };

export type DbKind = "pg" | "pglite";

/** The SQL functions that enter a tenant themselves (the only ones tenantCall may run). */
export type TenantFunction =
  | "michi_open_turn"
  | "michi_open_turn_as_seen"
  | "michi_finish_turn"
  | "michi_read_live_events"
  | "michi_store_inbound";

/** Rows of a raw SQL statement. */
export async function rowsOf<T>(db: Db | Tx, query: SQL): Promise<T[]> {
  const res = (await db.execute(query)) as unknown as { rows: T[] };
  return res.rows;
}

export interface DbHandle {
  kind: DbKind;
  /**
   * Platform-level access (operator pages, widget key lookup, sign-in, migrations). It is not limited to a tenant,
   * so tenant data must go through `forTenant`. The name is meant to stand out in review.
   */
  platform: Db;
  /** Runs `fn` in a transaction as the RLS-limited role, with the tenant bound from a parameter. */
  forTenant<T>(tenantId: string, fn: (tx: TenantTx) => Promise<T>): Promise<T>;
  /**
   * One tenant SQL function in one round trip: `select fn(tenantId, ...args)`, a named prepared statement.
   * Each such function enters the tenant first (michi_enter_tenant: the same two settings as forTenant), so
   * RLS bounds every statement inside it, and it is its own transaction (src/lib/db/sql/turn-functions.sql).
   */
  tenantCall<T>(fn: TenantFunction, tenantId: string, args: readonly unknown[]): Promise<T>;
  /**
   * A small pool of its own for statements a provider is timing (the channels' webhook acknowledgements:
   * Meta and Telegram retry what they do not see answered quickly). They never queue for a connection behind
   * the answering workers' transactions, and on the embedded database the bridge runs them first whenever the
   * backend is free (pglite-worker.mjs). One statement each, no transactions: platform reads and tenantCall.
   */
  urgent: { platform: Db; tenantCall: DbHandle["tenantCall"] };
  ping(timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
  /** Raw client for the migrator and tests; `kind` says which database answers through it. */
  raw: { kind: DbKind; pool: import("pg").Pool };
}

/**
 * `url`: a Postgres server. `dataDir`: the embedded database (PGlite) in that directory, or in memory for null
 * (tests); it runs in a worker thread and is reached through the same `pg` pool (see ./embedded.ts).
 */
export type DbOptions = { url: string; poolMax?: number } | { dataDir: string | null; poolMax?: number };

/**
 * Connections to the embedded database. It has one backend, so they add no parallel work; a second one lets
 * the next statement wait inside the worker (which runs it the moment the backend is free) instead of in the
 * main thread's pool queue, which is only served when the busy event loop comes round.
 */
export const EMBEDDED_POOL_MAX = 4;
/** Connections of the urgent pool (DbHandle.urgent); its name is how the embedded bridge knows them. */
const URGENT_POOL_MAX = 2;
const URGENT_APPLICATION_NAME = "michi-urgent";

type DrizzlePg = typeof import("drizzle-orm/node-postgres");

// The transaction is opened and the tenant bound in one round trip: `begin` and both set_config calls go as
// one simple query, instead of drizzle's `begin` and then the settings (a round trip saved on every tenant
// transaction; on a busy 2-core machine each one is a wake-up of Postgres and back, npm run bench, live).
// The simple protocol takes no parameters, so the tenant id is written into the text: only after isUuid
// passed, which admits hex digits and dashes alone. set_config(..., true) is transaction-local; a plain SET
// would leak to the next user of a pooled connection. Setting 'role' this way is SET LOCAL ROLE. The rest is
// drizzle's own transaction (its session and transaction classes over the checked-out client), so nested
// transactions (savepoints) and tx.rollback() behave as with db.transaction.
function forTenantOf(db: Db, pool: import("pg").Pool, orm: DrizzlePg) {
  const { dialect, session } = db as unknown as {
    dialect: ConstructorParameters<DrizzlePg["NodePgSession"]>[1];
    session: { schema: ConstructorParameters<DrizzlePg["NodePgSession"]>[2]; options: object };
  };
  return async <T>(tenantId: string, fn: (tx: TenantTx) => Promise<T>): Promise<T> => {
    if (!isUuid(tenantId)) throw new Error("forTenant needs a tenant uuid");
    const client = await pool.connect();
    // Set when the connection's state is unknown (its begin, commit or rollback failed): it is not reused.
    let broken: Error | undefined;
    try {
      try {
        await client.query(
          `begin; select set_config('app.tenant_id', '${tenantId}', true), set_config('role', 'michi_tenant', true)`,
        );
      } catch (err) {
        broken = err as Error;
        throw err;
      }
      const s = new orm.NodePgSession(client, dialect, session.schema, session.options);
      const tx = new orm.NodePgTransaction(dialect, s, session.schema);
      let result: T;
      try {
        result = await fn(tx as unknown as TenantTx);
      } catch (err) {
        await client.query("rollback").catch((e: Error) => {
          broken = e;
        });
        throw err;
      }
      try {
        await client.query("commit");
      } catch (err) {
        broken = err as Error;
        throw err;
      }
      return result;
    } finally {
      client.release(broken);
    }
  };
}

// Named (prepared once per connection) on Postgres only: the embedded database's pooled connections share one
// backend, while pg remembers prepared names per connection, so a second connection would prepare it again.
function tenantCaller(pool: import("pg").Pool, named: boolean) {
  const texts = new Map<string, string>();
  return async <T>(fn: TenantFunction, tenantId: string, args: readonly unknown[]): Promise<T> => {
    if (!isUuid(tenantId)) throw new Error("tenantCall needs a tenant uuid");
    const name = `${fn}/${args.length + 1}`;
    let text = texts.get(name);
    if (!text) {
      const params = Array.from({ length: args.length + 1 }, (_, i) => `$${i + 1}`).join(", ");
      text = `select ${fn}(${params}) as r`;
      texts.set(name, text);
    }
    const res = await pool.query<{ r: T }>({
      ...(named ? { name } : {}),
      text,
      values: [tenantId, ...args],
    });
    return res.rows[0]?.r as T;
  };
}

export async function createDb(opts: DbOptions): Promise<DbHandle> {
  const pg = await import("pg");
  const orm = await import("drizzle-orm/node-postgres");
  const { drizzle } = orm;
  const kind: DbKind = "url" in opts ? "pg" : "pglite";
  const embedded = "url" in opts ? null : await (await import("./embedded")).startEmbedded(opts.dataDir);
  const poolOf = (max: number, extra: { application_name?: string; idleTimeoutMillis?: number } = {}) => {
    const p = new pg.default.Pool({
      ...(embedded
        ? { host: embedded.host, port: embedded.port, user: "postgres", database: "postgres" }
        : { connectionString: (opts as { url: string }).url }),
      max,
      connectionTimeoutMillis: 5000,
      idleTimeoutMillis: 30_000,
      ...extra,
    });
    // An idle client losing its server must not crash the process; the next query reports the fault.
    p.on("error", () => {});
    // A client checked out for a transaction has no pool listener: losing its server mid-query (an outage at
    // the end of a chat turn) would be an uncaught 'error' event. The running query fails with it anyway.
    p.on("connect", (client) => client.on("error", () => {}));
    return p;
  };
  const pool = poolOf(opts.poolMax ?? (embedded ? EMBEDDED_POOL_MAX : 10));
  // Its connections stay open (no idle timeout): a new one would first wait its turn to start up.
  const urgentPool = poolOf(URGENT_POOL_MAX, {
    application_name: URGENT_APPLICATION_NAME,
    idleTimeoutMillis: 0,
  });
  const db = drizzle(pool, { schema }) as unknown as Db;
  return {
    kind,
    platform: db,
    forTenant: forTenantOf(db, pool, orm),
    tenantCall: tenantCaller(pool, kind === "pg"),
    urgent: {
      platform: drizzle(urgentPool, { schema }) as unknown as Db,
      tenantCall: tenantCaller(urgentPool, kind === "pg"),
    },
    raw: { kind, pool },
    async ping(timeoutMs = 2000) {
      const client = await pool.connect();
      try {
        // The embedded backend is shared by every connection, so a session setting would reach the others.
        if (embedded) return await withTimeout(client.query("select 1"), timeoutMs);
        await client.query(`set statement_timeout = ${Math.max(1, Math.floor(timeoutMs))}`);
        await client.query("select 1");
        await client.query("reset statement_timeout");
      } finally {
        client.release();
      }
    },
    async close() {
      await Promise.all([pool.end(), urgentPool.end()]);
      await embedded?.stop();
    },
  };
}

async function withTimeout(p: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      p,
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`database did not answer within ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
