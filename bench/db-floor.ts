import pg from "pg";
import { cpuMs } from "./lib/procs";
import { KEYS, seedBench } from "./lib/seed";
import { freshDatabase } from "./lib/servers";
import { median, round } from "./lib/stats";

// The database floor of a chat turn (issue 17): the least a turn must ask of Postgres, run bare with `pg` on
// one connection, no ORM, no transaction, no row-level security, no limits. A follow-up turn must read the
// tenant (by the widget key) and the conversation, store the visitor's message and store the answer: four
// statements, four round trips. Beside michi-chat's statements per turn (db.queriesPerTurn) it names every
// round trip above the minimum. Figures: wall time per turn on loopback, this process's CPU per turn (the
// client side: pg's protocol work) and the Postgres backend's CPU per turn (/proc/<backend pid>/stat).

export type DbFloorResult = {
  statementsPerTurn: number;
  turns: number;
  msPerTurnP50: number;
  clientCpuMsPerTurn: number;
  backendCpuMsPerTurn: number | null;
};

const FLOOR_STATEMENTS = [
  "select id, status, name, bot, monthly_token_budget from tenants where widget_key = $1",
  "select id from conversations where id = $1 and tenant_id = $2 and visitor_id = $3",
  "insert into messages (tenant_id, conversation_id, role, content) values ($1, $2, 'user', $3) returning id",
  `insert into messages (tenant_id, conversation_id, role, content, model, prompt_tokens, completion_tokens)
   values ($1, $2, 'assistant', $3, 'fake-small', 900, 40) returning id`,
];

export async function benchDbFloor(opts: {
  serverUrl: string;
  fixtureOrigin: string;
  quick: boolean;
  log: (s: string) => void;
}): Promise<DbFloorResult> {
  const db = await freshDatabase("floor", opts.serverUrl);
  if (db.kind !== "pg") throw new Error("the database floor needs Postgres");
  const { chat: tenantId } = await seedBench(db, opts.fixtureOrigin);
  const c = new pg.Client({ connectionString: db.url });
  await c.connect();
  try {
    const visitor = "bench-floor-visitor";
    const conv = await c.query<{ id: string }>(
      "insert into conversations (tenant_id, visitor_id, origin) values ($1, $2, 'https://bench.example') returning id",
      [tenantId, visitor],
    );
    const conversationId = conv.rows[0]!.id;
    const backend = (await c.query<{ pid: number }>("select pg_backend_pid() as pid")).rows[0]!.pid;
    // Named statements: parsed once per connection, as a driver with prepared statements would.
    const [tenantQ, convQ, userQ, answerQ] = FLOOR_STATEMENTS.map((text, i) => ({
      name: `floor_${i}`,
      text,
    }));
    const turn = async (n: number) => {
      await c.query({ ...tenantQ!, values: [KEYS.chat] });
      await c.query({ ...convQ!, values: [conversationId, tenantId, visitor] });
      await c.query({ ...userQ!, values: [tenantId, conversationId, `bench-turn: anything on? (${n})`] });
      await c.query({
        ...answerQ!,
        values: [tenantId, conversationId, "This weekend: a workshop. Anything else?"],
      });
    };
    for (let i = 0; i < 50; i++) await turn(i); // warm-up: plans, caches, JIT
    const turns = opts.quick ? 300 : 1000;
    const times: number[] = [];
    const cpu0 = process.cpuUsage();
    const back0 = cpuMs(backend);
    for (let i = 0; i < turns; i++) {
      const t0 = performance.now();
      await turn(i);
      times.push(performance.now() - t0);
    }
    const cpu = process.cpuUsage(cpu0);
    const back1 = cpuMs(backend);
    const result: DbFloorResult = {
      statementsPerTurn: FLOOR_STATEMENTS.length,
      turns,
      msPerTurnP50: round(median(times), 3),
      clientCpuMsPerTurn: round((cpu.user + cpu.system) / 1000 / turns, 3),
      backendCpuMsPerTurn: back0 === null || back1 === null ? null : round((back1 - back0) / turns, 3),
    };
    opts.log(
      `  db floor: ${result.statementsPerTurn} statements per turn, p50 ${result.msPerTurnP50} ms, ` +
        `client CPU ${result.clientCpuMsPerTurn} ms, Postgres backend CPU ${result.backendCpuMsPerTurn ?? "?"} ms per turn`,
    );
    return result;
  } finally {
    await c.end();
  }
}
