import { sql } from "drizzle-orm";
import pg from "pg";
import { createDb } from "../src/lib/db/client";
import { migrate } from "../src/lib/db/migrate";
import { listConversations } from "../src/lib/db/queries/insights-list";
import { usageReport } from "../src/lib/db/queries/insights-usage";
import { createTenant } from "../src/lib/db/queries/tenants";
import { fakeModelControl } from "../tests/support/fake-model";
import { CHAT_RULES } from "./chat-overhead";
import { makeClient } from "./lib/client";
import type { PgProxy } from "./lib/pg-proxy";
import { cpuMs } from "./lib/procs";
import { KEYS } from "./lib/seed";
import { type BenchDb, freshDatabase, startProxiedApp, type World } from "./lib/servers";
import { median, round } from "./lib/stats";

// The database side of a turn and of the Usage page.
//  - queriesPerTurn: the production server talks to Postgres through a counting TCP proxy (bench/lib/pg-proxy.ts),
//    so every statement it sends is seen, whatever code path sent it (drizzle, the Postgres rate limiter, the
//    pool). One visitor sends turns one after another; statements are counted between turns, per turn.
//  - usagePageMs: the aggregation behind the Usage page (usageReport, 30-day period) on a tenant with 100,000
//    messages, median of several runs.
//  - searchMs: the conversation list with a search term over those same messages (the trigram index of
//    drizzle/0005), median of several runs.

export type QueriesResult = {
  queriesPerTurn: number;
  newConversationTurn: number;
  followUpTurn: number;
  transactionsPerTurn: number;
  /** Statements of one follow-up turn, by SQL text. */
  breakdown: { sql: string; perTurn: number }[];
  /** CPU of the server's Postgres backends per follow-up turn (from /proc; null when not readable). */
  backendCpuMsPerTurn: number | null;
};

/** CPU so far of every Postgres backend connected to the database of `url` (same machine only). */
async function backendsCpuMs(url: string): Promise<number | null> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const name = new URL(url).pathname.slice(1);
    const { rows } = await c.query<{ pid: number }>(
      "select pid from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()",
      [name],
    );
    let sum = 0;
    for (const r of rows) {
      const ms = cpuMs(r.pid);
      if (ms === null) return null;
      sum += ms;
    }
    return sum;
  } finally {
    await c.end();
  }
}

export async function benchQueriesPerTurn(opts: {
  standalone: string;
  world: World;
  serverUrl: string;
  log: (s: string) => void;
}): Promise<QueriesResult> {
  const { proxy, app, db } = await startProxiedApp({
    label: "queries",
    standalone: opts.standalone,
    world: opts.world,
    serverUrl: opts.serverUrl,
  });
  const client = makeClient(app.url, app.origin);
  try {
    const model = fakeModelControl(opts.world.modelUrl);
    await model.reset();
    await model.setRules(CHAT_RULES);
    const token = await client.session(KEYS.chat);
    const turn = async (conversationId?: string) => {
      const r = await client.chat(
        `/api/widget/${KEYS.chat}/chat`,
        { message: "bench-turn: anything on tonight?", conversationId },
        { authorization: `Bearer ${token}` },
      );
      if (!r.done)
        throw new Error(`queries benchmark turn failed: ${JSON.stringify(r.error ?? r.transportError)}`);
      return r.conversationId!;
    };
    // Warm-up: the rate limiter creates its table on first use, the pool opens its connections.
    await turn(await turn());

    const measure = async (n: number, fn: () => Promise<unknown>) => {
      proxy.resetCounts();
      for (let i = 0; i < n; i++) await fn();
      return proxy.counts();
    };
    const fresh = await measure(5, () => turn());
    const conv = await turn();
    const follow = await measure(5, () => turn(conv));
    // Postgres's CPU over 100 turns, 5 per conversation as in the chat benchmark: /proc counts in 10 ms ticks,
    // so 5 turns alone could only say 0, 2 or 4 ms per turn.
    const CPU_TURNS = 100;
    const back0 = await backendsCpuMs(db.url);
    let current: string | undefined;
    for (let i = 0; i < CPU_TURNS; i++) current = await turn(i % 5 === 0 ? undefined : current);
    const back1 = await backendsCpuMs(db.url);
    const perTurn = (c: ReturnType<PgProxy["counts"]>) => c.total / 5;
    const begins = [...follow.byText].filter(([k]) => /^begin/i.test(k)).reduce((a, [, v]) => a + v, 0);
    const result: QueriesResult = {
      queriesPerTurn: round(perTurn(follow), 1),
      newConversationTurn: round(perTurn(fresh), 1),
      followUpTurn: round(perTurn(follow), 1),
      transactionsPerTurn: round(begins / 5, 1),
      breakdown: [...follow.byText]
        .map(([k, v]) => ({ sql: k, perTurn: round(v / 5, 1) }))
        .sort((a, b) => b.perTurn - a.perTurn),
      backendCpuMsPerTurn: back0 === null || back1 === null ? null : round((back1 - back0) / CPU_TURNS, 2),
    };
    opts.log(
      `  db: ${result.followUpTurn} statements per follow-up turn (${result.transactionsPerTurn} explicit transactions), ` +
        `${result.newConversationTurn} for a turn that starts a conversation`,
    );
    return result;
  } finally {
    client.close();
    await app.stop();
    await proxy.close();
  }
}

export type UsageResult = {
  usagePageMs: number;
  usagePage90Ms: number;
  /** The conversation list searched for a substring over the same 100,000 messages (trigram index). */
  searchMs: number;
  messages: number;
  dbKind: string;
};

/** Seeds a tenant with `messages` messages over 90 days in a few multi-row statements. */
async function seedUsage(db: BenchDb, count: number) {
  const handle =
    db.kind === "pg" ? await createDb({ url: db.url, poolMax: 2 }) : await createDb({ dataDir: null });
  await migrate(handle);
  const tenant = await createTenant(handle.platform, { slug: "usage-bench", name: "Usage Bench" });
  const t = tenant.id;
  const conversations = Math.ceil(count / 10);
  const exec = (q: ReturnType<typeof sql>) => handle.platform.execute(q);
  await exec(sql`insert into conversations (tenant_id, visitor_id, origin, started_at, last_activity_at)
    select ${t}, 'visitor-' || g, 'https://shop.example', ts, ts + interval '10 minutes'
    from (select g, now() - ((g * 7919) % (90 * 24 * 60)) * interval '1 minute' as ts
          from generate_series(1, ${conversations}) g) s`);
  await exec(sql`with c as (select id, started_at, row_number() over (order by id) as rn
                            from conversations where tenant_id = ${t})
    insert into messages (tenant_id, conversation_id, role, content, status, prompt_tokens, completion_tokens, created_at)
    select ${t}, c.id,
      case when g % 2 = 1 then 'user' else 'assistant' end,
      case when g % 2 = 1 then 'Do you have this jacket in stock in medium? #' || g
           else 'Yes, the Northpeak jacket is in stock in S, M and L, at 89 GBP. #' || g end,
      'complete',
      case when g % 2 = 0 then 900 + g % 300 else 0 end,
      case when g % 2 = 0 then 60 + g % 40 else 0 end,
      c.started_at + (g % 10) * interval '1 minute'
    from generate_series(1, ${count}) g join c on c.rn = ((g - 1) / 10) + 1`);
  await exec(sql`with c as (select id, started_at, row_number() over (order by id) as rn
                            from conversations where tenant_id = ${t})
    insert into tool_runs (tenant_id, conversation_id, pack_id, call_id, args, result, result_chars,
                           result_tokens, duration_ms, outcome, created_at)
    select ${t}, c.id, case when g % 3 = 0 then 'fetch_json' else 'get_opening_status' end, 'call_' || g,
      '{}'::jsonb, '{"open":true}', 13, 5, 50 + g % 400,
      case when g % 25 = 0 then 'error' else 'ok' end, c.started_at + interval '1 minute'
    from generate_series(1, ${conversations * 2}) g join c on c.rn = ((g - 1) / 2) + 1`);
  await exec(sql`insert into usage_monthly (tenant_id, month, prompt_tokens, completion_tokens)
    values (${t}, to_char(now() at time zone 'UTC', 'YYYY-MM'), 45000000, 3000000)`);
  await exec(sql`analyze`);
  return { handle, tenantId: t };
}

export async function benchUsagePage(opts: {
  serverUrl: string | null;
  quick: boolean;
  log: (s: string) => void;
}): Promise<UsageResult> {
  const count = 100_000;
  const db = await freshDatabase("usage", opts.serverUrl);
  const started = performance.now();
  const { handle, tenantId } = await seedUsage(db, count);
  opts.log(
    `  db: seeded ${count} messages in ${((performance.now() - started) / 1000).toFixed(1)} s (${handle.kind})`,
  );
  try {
    const time = async (period: 30 | 90) => {
      const runs: number[] = [];
      for (let i = 0; i < (opts.quick ? 4 : 8); i++) {
        const t0 = performance.now();
        await handle.forTenant(tenantId, (tx) => usageReport(tx, { tenantId }, { period }));
        if (i > 0) runs.push(performance.now() - t0); // the first run warms caches and plans
      }
      return round(median(runs), 1);
    };
    const search = async () => {
      const runs: number[] = [];
      for (let i = 0; i < (opts.quick ? 4 : 8); i++) {
        const t0 = performance.now();
        // "northpeak" sits in every assistant message, folded from "Northpeak"; "#4242" in one user message.
        await handle.forTenant(tenantId, (tx) =>
          listConversations(tx, tenantId, { q: i % 2 ? "northpeak" : "#4242 medium" }),
        );
        if (i > 0) runs.push(performance.now() - t0);
      }
      return round(median(runs), 1);
    };
    const result: UsageResult = {
      usagePageMs: await time(30),
      usagePage90Ms: await time(90),
      searchMs: await search(),
      messages: count,
      dbKind: handle.kind,
    };
    opts.log(
      `  db: usage page aggregation ${result.usagePageMs} ms (30 days), ${result.usagePage90Ms} ms (90 days); transcript search ${result.searchMs} ms`,
    );
    return result;
  } finally {
    await handle.close();
  }
}
