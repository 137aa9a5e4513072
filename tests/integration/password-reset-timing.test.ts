import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { installTestDb } from "../support/admin-env";
import { setRequestHeaders } from "../support/admin-mocks";
import { makeUser } from "../support/admin-world";
import type { TestDb } from "../support/db";
import { startTestMailQueue } from "../support/mail-queue";
import { mannWhitney } from "../support/rank-test";

vi.mock("@/lib/auth/claims", () => import("../support/admin-mocks").then((m) => m.claimsModule));
vi.mock("next/headers", () => import("../support/admin-mocks").then((m) => m.headersModule));
vi.mock("next/cache", () => import("../support/admin-mocks").then((m) => m.cacheModule));

const { requestResetAction } = await import("@/app/signin/forgot/actions");

// "Forgot password?" must not tell by its answer time whether an address has an account. The two kinds of
// address are asked in a shuffled order, so whatever else the machine is doing slows both alike, and their
// answer times are compared by rank (Mann-Whitney): with the account's work done before the answer, the
// known addresses answered measurably later (p far below 0.001 over 60 + 60 requests).

const SAMPLES = 60;
let t: TestDb;
let queue: Awaited<ReturnType<typeof startTestMailQueue>>;

const fd = (v: Record<string, string>) => {
  const f = new FormData();
  for (const [k, val] of Object.entries(v)) f.set(k, val);
  return f;
};

beforeAll(async () => {
  t = await installTestDb();
  for (let i = 0; i < SAMPLES + 4; i++) await makeUser(t.handle, `known${i}@timing.test`);
  queue = await startTestMailQueue(t.handle);
});
afterAll(async () => {
  await queue?.stop();
  await t?.close();
});

describe("the answer time of Forgot password?", () => {
  it("does not differ between addresses with and without an account", async () => {
    // Deterministic shuffle (a linear congruential generator), so a failure can be replayed.
    let seed = 12345;
    const rand = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const order = [...Array(SAMPLES).fill("known"), ...Array(SAMPLES).fill("ghost")] as ("known" | "ghost")[];
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(rand() * (i + 1));
      [order[i], order[j]] = [order[j]!, order[i]!];
    }
    const times = { known: [] as number[], ghost: [] as number[] };
    const count = { known: 0, ghost: 0 };
    let ip = 0;
    const ask = async (kind: "known" | "ghost", i: number) => {
      // A network of its own per request: the per-network limit is not what is measured.
      ip++;
      setRequestHeaders({ "x-michi-peer": `198.51.${ip >> 8}.${ip & 255}` });
      const started = performance.now();
      const state = await requestResetAction({}, fd({ email: `${kind}${i}@timing.test` }));
      const ms = performance.now() - started;
      expect(state.ok).toBe(true);
      return ms;
    };
    // Warm-up: first calls compile code and fill caches on both paths.
    for (let i = 0; i < 2; i++) {
      await ask("known", SAMPLES + i);
      await ask("ghost", SAMPLES + i);
    }
    for (const kind of order) times[kind].push(await ask(kind, count[kind]++));
    const r = mannWhitney(times.known, times.ghost);
    expect(
      r.p,
      `medians ${r.medianA.toFixed(2)} ms (account) vs ${r.medianB.toFixed(2)} ms (none)`,
    ).toBeGreaterThan(0.001);
  }, 120_000);
});
