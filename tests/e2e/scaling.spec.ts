import type { ChildProcess } from "node:child_process";
import { expect, test } from "@playwright/test";
import pg from "pg";
import { createEmptyDatabase } from "../support/db";
import { E2E } from "../support/e2e-env";
import { instanceEnv, startStandalone } from "../support/standalone";

// Two production instances behind an imaginary load balancer, on one fresh Postgres database.
const PUBLIC = "http://michi.test";

test.describe("two instances on one Postgres", () => {
  test.skip(!process.env.DATABASE_URL, "needs Postgres: set DATABASE_URL (CI does)");
  test.describe.configure({ mode: "serial", timeout: 120_000 });

  let database: Awaited<ReturnType<typeof createEmptyDatabase>>;
  const procs: ChildProcess[] = [];
  const ports: number[] = [];
  const logs: (() => string)[] = [() => "", () => ""];
  let widgetKey = "";

  test.beforeAll(async () => {
    database = await createEmptyDatabase("michi_scale");
    const shared = instanceEnv({
      publicUrl: PUBLIC,
      modelUrl: E2E.modelUrl,
      database: { url: database.url },
      extra: {
        HOSTNAME: "127.0.0.1",
        MICHI_ADMIN_PASSWORD: "scale-operator-password",
        MICHI_RATE_VISITOR_PER_MIN: "3",
        MICHI_LOG_LEVEL: "info",
      },
    });
    // Started at the same moment, on an empty database.
    const started = await Promise.all([0, 1].map(() => startStandalone({ env: () => shared })));
    for (const [i, one] of started.entries()) {
      procs.push(one.child);
      ports[i] = one.port;
      logs[i] = one.logs;
    }
    const c = new pg.Client({ connectionString: database.url });
    await c.connect();
    widgetKey = (await c.query<{ widget_key: string }>("select widget_key from tenants where slug = 'demo'"))
      .rows[0]!.widget_key;
    await c.end();
    await fetch(`${E2E.modelUrl}/__control/rules`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify([{ match: "scale-check", steps: [{ type: "text", text: "Noted." }] }]),
    });
  });

  test.afterAll(async () => {
    // Wait for each instance to be gone (not a fixed second) before the database is dropped under it.
    await Promise.all(
      procs.map((p) =>
        p.exitCode !== null || p.signalCode !== null
          ? undefined
          : new Promise((r) => {
              p.once("exit", r);
              p.kill("SIGTERM");
            }),
      ),
    );
    await database?.drop();
  });

  const base = (i: 0 | 1) => `http://127.0.0.1:${ports[i]}/api/widget/${widgetKey}`;
  const headers = (token?: string) => ({
    "content-type": "application/json",
    origin: PUBLIC,
    ...(token ? { authorization: `Bearer ${token}` } : {}),
  });

  async function session(i: 0 | 1): Promise<string> {
    const res = await fetch(`${base(i)}/session`, { method: "POST", headers: headers(), body: "{}" });
    expect(res.status).toBe(200);
    return ((await res.json()) as { token: string }).token;
  }

  async function chat(i: 0 | 1, token: string, message: string, conversationId?: string) {
    const res = await fetch(`${base(i)}/chat`, {
      method: "POST",
      headers: headers(token),
      body: JSON.stringify({ message, conversationId }),
    });
    const text = await res.text();
    const done = /event: done\ndata: (.+)/.exec(text)?.[1];
    return {
      status: res.status,
      text,
      conversationId: done ? (JSON.parse(done) as { conversationId: string }).conversationId : undefined,
    };
  }

  test("both came up, and the migrations ran once", async () => {
    const c = new pg.Client({ connectionString: database.url });
    await c.connect();
    const applied = (
      await c.query<{ n: number }>("select count(*)::int as n from drizzle.__drizzle_migrations")
    ).rows[0]!.n;
    await c.end();
    const reports = logs.map((l) =>
      l()
        .split("\n")
        .filter((line) => line.includes('"michi-chat ready"'))
        .map((line) => (JSON.parse(line) as { applied: number }).applied),
    );
    expect(reports.map((r) => r.length)).toEqual([1, 1]);
    expect(reports.flat().sort()).toEqual([0, applied]);
  });

  test("a conversation started on instance A continues on instance B", async () => {
    const token = await session(0);
    const first = await chat(0, token, "scale-check: my name is Aiko");
    expect(first.status).toBe(200);
    expect(first.text).toContain("Noted.");
    const second = await chat(1, token, "scale-check: what is my name?", first.conversationId);
    expect(second.status).toBe(200);
    expect(second.conversationId).toBe(first.conversationId);
    // Instance B loaded the earlier turn from the shared database and sent it to the model.
    const requests = (await (await fetch(`${E2E.modelUrl}/__control/requests`)).json()) as {
      body: { messages: { role: string; content?: unknown }[] };
    }[];
    const last = requests.filter((r) => JSON.stringify(r.body.messages).includes("what is my name")).at(-1);
    expect(JSON.stringify(last?.body.messages)).toContain("my name is Aiko");
  });

  test("a visitor's rate limit is shared across both instances", async () => {
    const token = await session(1);
    const statuses: number[] = [];
    for (const i of [0, 1, 0, 1] as const)
      statuses.push((await chat(i, token, `scale-check ${statuses.length}`)).status);
    // Three per minute in all: per-instance counting would have let the fourth through.
    expect(statuses).toEqual([200, 200, 200, 429]);
  });
});
