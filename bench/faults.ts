import pg from "pg";
import { fakeModelControl, type Step } from "../tests/support/fake-model";
import { CHAT_RULES, visitorTokens } from "./chat-overhead";
import { makeClient, type TurnResult } from "./lib/client";
import { sleep } from "./lib/procs";
import { KEYS } from "./lib/seed";
import { startProxiedApp, type World } from "./lib/servers";

// Load under faults: visitors keep chatting while the fake model answers 429s, 5xx and stalls, and a TCP proxy
// in front of Postgres drops every connection for a few seconds. Afterwards every turn is checked against the
// database directly (not through the proxy).
//
// A message is LOST when the server accepted it (answered 200 and started the stream) but it is not stored:
// the visitor saw their message go through, so it must be in the conversation log. An answer is lost when the
// stream said `done` (or an `error` carrying a messageId) but that message is not stored.

export type FaultsResult = {
  attempted: number;
  accepted: number;
  answered: number;
  failedWithMessage: number;
  failedSilently: number;
  lost: number;
  answersLost: number;
  /** Turns whose answer text reached the visitor but was not stored (the database went away at the end). */
  streamedNotStored: number;
  failures: Record<string, number>;
  healthAfter: number;
  turnAfterRecovery: boolean;
  phases: { name: string; seconds: number }[];
};

export async function benchFaults(opts: {
  standalone: string;
  world: World;
  serverUrl: string;
  quick: boolean;
  log: (s: string) => void;
}): Promise<FaultsResult> {
  const { db, proxy, app } = await startProxiedApp({
    label: "faults",
    standalone: opts.standalone,
    world: opts.world,
    serverUrl: opts.serverUrl,
    // Stalls must end within the run: a short idle timeout, a bounded total.
    env: { MICHI_MODEL_IDLE_TIMEOUT_MS: "1500", MICHI_MODEL_TIMEOUT_MS: "10000", DATABASE_POOL_MAX: "10" },
  });
  const client = makeClient(app.url, app.origin);
  const model = fakeModelControl(opts.world.modelUrl);
  const direct = new pg.Client({ connectionString: db.url });
  try {
    await model.reset();
    await model.setRules(CHAT_RULES);
    const visitors = opts.quick ? 8 : 20;
    const tokens = await visitorTokens(client, KEYS.chat, visitors);
    const phase = opts.quick ? 2500 : 5000;
    const turns: { message: string; r: TurnResult }[] = [];
    let stop = false;
    const conversations: (string | undefined)[] = tokens.map(() => undefined);

    const visitor = async (v: number) => {
      for (let n = 0; !stop; n++) {
        const message = `fault-turn v${v} n${n} bench-turn`;
        const r = await client.chat(
          `/api/widget/${KEYS.chat}/chat`,
          { message, conversationId: conversations[v] },
          { authorization: `Bearer ${tokens[v]}` },
        );
        if (r.conversationId) conversations[v] = r.conversationId;
        turns.push({ message, r });
        if (!r.done) await sleep(100); // a visitor reads the error before trying again
      }
    };
    const running = Promise.all(tokens.map((_, v) => visitor(v)));

    const phases: { name: string; seconds: number }[] = [];
    const during = async (name: string, fault: () => Promise<void> | void) => {
      opts.log(`  faults: ${name}`);
      await fault();
      await sleep(phase);
      phases.push({ name, seconds: phase / 1000 });
    };
    const many = (n: number, step: Step) => Array.from({ length: n }, () => step);
    await during("normal", () => {});
    await during("model 429 (rate limited)", () =>
      model.enqueue(...many(40, { type: "http_error", status: 429, retryAfterMs: 50 })),
    );
    await during("model 500/502/503", () =>
      model.enqueue(
        ...many(15, { type: "http_error", status: 500 }),
        ...many(15, { type: "http_error", status: 502 }),
        ...many(15, { type: "http_error", status: 503 }),
      ),
    );
    await during("model stalls", () => model.enqueue(...many(visitors, { type: "stall" })));
    await during("database unreachable (proxy drops connections for 3 s)", () => proxy.drop(3000));
    await during("recovery", () => {});
    stop = true;
    await running;

    // The server still answers: health, then one ordinary turn.
    let healthAfter = 0;
    for (let i = 0; i < 50 && healthAfter !== 200; i++) {
      healthAfter = (await fetch(`${app.url}/api/health`).catch(() => null))?.status ?? 0;
      if (healthAfter !== 200) await sleep(200);
    }
    const after = await client.chat(
      `/api/widget/${KEYS.chat}/chat`,
      { message: "bench-turn after the faults" },
      { authorization: `Bearer ${tokens[0]}` },
    );

    await direct.connect();
    const stored = await direct.query<{ id: string; role: string; content: string }>(
      "select id, role, content from messages where content like 'fault-turn %' or role = 'assistant'",
    );
    const userTexts = new Set(stored.rows.filter((m) => m.role === "user").map((m) => m.content));
    const ids = new Set(stored.rows.map((m) => m.id));

    const failures: Record<string, number> = {};
    let accepted = 0;
    let answered = 0;
    let failedWithMessage = 0;
    let failedSilently = 0;
    let lost = 0;
    let answersLost = 0;
    let streamedNotStored = 0;
    for (const { message, r } of turns) {
      if (r.status === 200) {
        accepted++;
        if (!userTexts.has(message)) lost++;
      }
      if (r.messageId && !ids.has(r.messageId)) answersLost++;
      if (!r.messageId && r.events.some((e) => e.type === "delta")) streamedNotStored++;
      if (r.done) {
        answered++;
        continue;
      }
      const kind = r.error?.code ?? r.transportError ?? `http_${r.status}`;
      failures[kind] = (failures[kind] ?? 0) + 1;
      if (r.error?.message) failedWithMessage++;
      else failedSilently++;
    }
    const result: FaultsResult = {
      attempted: turns.length,
      accepted,
      answered,
      failedWithMessage,
      failedSilently,
      lost,
      answersLost,
      streamedNotStored,
      failures,
      healthAfter,
      turnAfterRecovery: after.done,
      phases,
    };
    opts.log(
      `  faults: ${result.attempted} turns, ${answered} answered, ${failedWithMessage} failed with a message, ` +
        `${failedSilently} failed silently, ${lost} lost; health after ${healthAfter}, turn after ${after.done ? "ok" : "FAILED"}`,
    );
    return result;
  } finally {
    client.close();
    await direct.end().catch(() => {});
    await app.stop();
    await proxy.close();
  }
}
