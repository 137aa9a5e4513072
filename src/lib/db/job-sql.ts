import "server-only";
import { type SQL, sql } from "drizzle-orm";
import { type DbHandle, rowsOf, type Tx } from "./client";

// The durable queue (pg-boss, src/lib/queue) speaks SQL through an executor it is handed. Two are offered:
// the shared pool, and the caller's own transaction, so a job is inserted atomically with the tenant write
// that caused it (a rolled-back lead enqueues nothing; a committed one cannot lose its delivery).

/** The shape pg-boss calls: its own statements with `$n` placeholders. */
export type SqlExecutor = {
  // biome-ignore lint/suspicious/noExplicitAny: rows of the library's own statements
  executeSql(text: string, values?: unknown[]): Promise<{ rows: any[] }>;
};

export function poolExecutor(handle: DbHandle): SqlExecutor {
  return { executeSql: (text, values) => handle.raw.pool.query(text, values as unknown[] | undefined) };
}

/**
 * Runs pg-boss's statements inside a drizzle transaction. drizzle numbers parameters itself, so each `$n` of
 * the text is replaced by its bound value in order (a repeated `$n` simply binds the value twice).
 */
export function txExecutor(tx: Tx): SqlExecutor {
  return {
    async executeSql(text, values = []) {
      const chunks: SQL[] = [];
      let last = 0;
      for (const m of text.matchAll(/\$(\d+)/g)) {
        chunks.push(sql.raw(text.slice(last, m.index)));
        chunks.push(sql`${bindable(values[Number(m[1]) - 1])}`);
        last = m.index + m[0].length;
      }
      chunks.push(sql.raw(text.slice(last)));
      const res = (await tx.execute(sql.join(chunks))) as unknown as { rows: unknown[] };
      return { rows: res.rows };
    },
  };
}

/** `pg` sends objects as JSON itself; through drizzle they must arrive as JSON text already. */
function bindable(v: unknown): unknown {
  if (v === undefined) return null;
  if (v && typeof v === "object" && !(v instanceof Date) && !Buffer.isBuffer(v)) return JSON.stringify(v);
  return v;
}

/**
 * Lets the tenant role insert jobs (and nothing else of the queue's) from inside its own transactions. Run
 * after the queue has created its schema. Instances starting together may race on the same GRANT (Postgres
 * then reports "tuple concurrently updated"), so a failed grant counts as done when the privileges are there.
 */
export async function grantQueueInsert(handle: DbHandle, schema: string): Promise<void> {
  const s = sql.identifier(schema);
  const granted = async () => {
    const [row] = await rowsOf<{ ok: boolean }>(
      handle.platform,
      sql`select has_schema_privilege('michi_tenant', ${schema}, 'USAGE')
             and has_table_privilege('michi_tenant', ${`${schema}.queue`}, 'SELECT')
             and has_table_privilege('michi_tenant', ${`${schema}.job`}, 'INSERT')
             and has_column_privilege('michi_tenant', ${`${schema}.job`}, 'id', 'SELECT') as ok`,
    );
    return row?.ok === true;
  };
  if (await granted()) return;
  try {
    await handle.platform.execute(sql`grant usage on schema ${s} to michi_tenant`);
    await handle.platform.execute(sql`grant select on ${s}.queue to michi_tenant`);
    // RETURNING id needs read access to that one column; job data and other queues' rows stay unreadable.
    await handle.platform.execute(sql`grant insert, select (id) on ${s}.job to michi_tenant`);
  } catch (err) {
    if (!(await granted())) throw err;
  }
}
