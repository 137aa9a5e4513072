import { spawn } from "node:child_process";
import path from "node:path";
import { Redis } from "ioredis";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { appendLiveEvent } from "@/lib/db/queries/live-events";
import { closeLiveWakes, onLiveWake, wakeLive } from "@/lib/live/bus";
import { handleLiveEvents } from "@/widget/server/events";
import { type ChatWorld, PLATFORM, SITE, startChatWorld } from "../support/chat-world";
import { liveCount, readLive, readyCount, visitorConversation } from "../support/live";

// The fan-out across instances (issue #28): a second process on the same Postgres appends and wakes, and
// this process's stream delivers, in order, once: through LISTEN/NOTIFY, or through Redis pub/sub when
// REDIS_URL is set. The streams' slow re-read is set to an hour here, so only the wake-up can deliver in time.

const ROOT = path.resolve(import.meta.dirname, "../..");
const REDIS = process.env.MICHI_TEST_REDIS_URL;
const HOUR = 3_600_000;

let w: ChatWorld | undefined;
afterEach(async () => {
  await closeLiveWakes();
  await w?.close();
  w = undefined;
});
afterAll(closeLiveWakes);

/** Runs tests/support/live-writer.ts as another process: it appends `texts` and wakes the streams. */
function otherInstance(env: Record<string, string>, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ["--import", "tsx", "--conditions=react-server", "tests/support/live-writer.ts", ...args],
      { cwd: ROOT, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] },
    );
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (out += d));
    child.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`writer ${code}: ${out}`))));
  });
}

async function heldStream(world: ChatWorld) {
  const tenant = await world.tenant();
  const token = await world.token(tenant.widgetKey);
  const id = await visitorConversation(world.db, tenant, token, process.env.MICHI_AUTH_SECRET!);
  const req = new Request(`${PLATFORM}/api/widget/${tenant.widgetKey}/conversations/${id}/events`, {
    headers: { origin: SITE, authorization: `Bearer ${token}` },
  });
  const deps = { db: async () => world.db, env: (await import("@/lib/env")).env };
  const s = readLive(await handleLiveEvents(req, tenant.widgetKey, id, deps, { resyncMs: HOUR }));
  await s.until((m) => readyCount(m) === 1);
  return { tenant, id, s };
}

describe.skipIf(!process.env.DATABASE_URL)("two processes on one Postgres", () => {
  it("LISTEN/NOTIFY: the other process's events reach this process's stream, in order, once", async () => {
    w = await startChatWorld();
    const { tenant, id, s } = await heldStream(w);
    await otherInstance({ DATABASE_URL: w.dbUrl! }, [tenant.id, id, "first", "second", "third"]);
    await s.until((m) => liveCount(m) === 3);
    expect(s.seen()).toEqual(["agent_message:first", "agent_message:second", "agent_message:third"]);
    await s.close();
  });

  // Seqs are taken in the order appends start, but transactions commit in any order: without the append's
  // per-tenant lock a stream could read seq N+1, move its cursor past N, and never deliver N once it commits.
  it("an append that commits later with a smaller seq is never passed over", async () => {
    w = await startChatWorld();
    const { tenant, id, s } = await heldStream(w);
    const slow = await w.db.raw.pool.connect();
    try {
      await slow.query("begin");
      await slow.query(
        "select set_config('app.tenant_id', $1, true), set_config('role', 'michi_tenant', true)",
        [tenant.id],
      );
      const data = JSON.stringify({
        messageId: "slow",
        text: "first, committed last",
        agent: { id: "a", name: "Ana" },
      });
      await slow.query("select michi_append_live_event($1, 'agent_message', $2::jsonb)", [id, data]);
      // A second writer appends and commits while the first is still open: it must wait for the first.
      const fast = w.db.forTenant(tenant.id, (tx) =>
        appendLiveEvent(tx, {
          conversationId: id,
          kind: "agent_message",
          data: { messageId: "fast", text: "second", agent: { id: "a", name: "Ana" } },
        }),
      );
      await expect
        .poll(async () => {
          const r = await w!.db.raw.pool.query(
            "select count(*)::int as n from pg_locks where locktype = 'advisory' and not granted",
          );
          return r.rows[0].n;
        })
        .toBe(1);
      await slow.query("commit");
      await fast;
      wakeLive(tenant.id, id);
    } finally {
      slow.release();
    }
    await s.until((m) => liveCount(m) === 2);
    expect(s.seen()).toEqual(["agent_message:first, committed last", "agent_message:second"]);
    await s.close();
  });

  it.skipIf(!REDIS)("Redis pub/sub: the wake-up travels through Redis, not LISTEN", async () => {
    w = await startChatWorld({ REDIS_URL: REDIS! });
    const { tenant, id, s } = await heldStream(w);
    await otherInstance({ DATABASE_URL: w.dbUrl!, REDIS_URL: REDIS! }, [tenant.id, id, "via", "redis"]);
    await s.until((m) => liveCount(m) === 2);
    expect(s.seen()).toEqual(["agent_message:via", "agent_message:redis"]);
    await s.close();
  });
});

describe.skipIf(!REDIS)("Redis mode in one process", () => {
  it("wakeLive publishes on Redis, and a wake-up published elsewhere wakes this process's listeners", async () => {
    w = await startChatWorld({ REDIS_URL: REDIS! });
    const raw = new Redis(REDIS!);
    const got: string[] = [];
    const sub = new Redis(REDIS!);
    await sub.subscribe("michi:live");
    sub.on("message", (_c: string, payload: string) => got.push(payload));
    const tenant = await w.tenant();
    const woken: (string | null)[] = [];
    const stop = onLiveWake(w.db, tenant.id, (c) => woken.push(c));
    // The subscriber says "re-read everything" once it is subscribed; after that a publish reaches it.
    await expect.poll(() => woken.includes(null)).toBe(true);
    await raw.publish("michi:live", `${tenant.id}:from-elsewhere`);
    await expect.poll(() => woken).toContain("from-elsewhere");
    wakeLive(tenant.id, "from-here");
    await expect.poll(() => got).toContain(`${tenant.id}:from-here`);
    stop();
    raw.disconnect();
    sub.disconnect();
  });
});
