import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { installTestDb } from "../support/admin-env";
import { cookieJar, outcome, setRequestHeaders } from "../support/admin-mocks";
import { makeUser, TEST_PASSWORD } from "../support/admin-world";
import type { TestDb } from "../support/db";

vi.mock("next/headers", () => import("../support/admin-mocks").then((m) => m.headersModule));
vi.mock("next/cache", () => import("../support/admin-mocks").then((m) => m.cacheModule));

const { authenticate } = await import("@/lib/auth/credentials");
const { DEFAULT_THROTTLE, signInThrottle } = await import("@/lib/auth/throttle");
const { sessionCookieName } = await import("@/lib/auth/session-cookie");
const { authOptions } = await import("@/lib/auth/options");
const { signInAction } = await import("@/app/signin/actions");

let t: TestDb;
const email = "guess-me@shop.test";

beforeAll(async () => {
  t = await installTestDb();
  await makeUser(t.handle, email);
  await makeUser(t.handle, "other@shop.test");
});
afterAll(() => t?.close());
afterEach(() => {
  vi.useRealTimers();
});

/** A throttle with the production rules under its own key prefix, so tests do not share counters. */
function freshThrottle(prefix: string, ipPoints = DEFAULT_THROTTLE.ip.points) {
  return signInThrottle({
    pair: { ...DEFAULT_THROTTLE.pair, keyPrefix: `${prefix}_pair` },
    ip: { ...DEFAULT_THROTTLE.ip, keyPrefix: `${prefix}_ip`, points: ipPoints },
  });
}

const attempt = (
  throttle: ReturnType<typeof signInThrottle>,
  password: string,
  ip = "203.0.113.7",
  who = email,
) => authenticate(t.handle.platform, { email: who, password, ip }, throttle);

describe("sign-in throttling per e-mail and IP", () => {
  it("refuses the 11th attempt in a row even with the right password, until the block ends", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const start = new Date("2030-01-01T10:00:00Z");
    vi.setSystemTime(start);
    const throttle = freshThrottle("t1");
    for (let i = 1; i <= 10; i++)
      expect(await attempt(throttle, `wrong-${i}`)).toEqual({ ok: false, reason: "invalid" });

    const blocked = await attempt(throttle, TEST_PASSWORD);
    expect(blocked).toMatchObject({ ok: false, reason: "throttled" });
    expect(blocked.ok === false && blocked.reason === "throttled" && blocked.retryAfterSec).toBe(15 * 60);

    // Still blocked a minute before the end, with the remaining time announced.
    vi.setSystemTime(new Date(start.getTime() + 14 * 60_000));
    expect(await attempt(throttle, TEST_PASSWORD)).toMatchObject({ reason: "throttled", retryAfterSec: 60 });

    // The same e-mail from another address is not blocked: the pair is the key.
    expect(await attempt(throttle, TEST_PASSWORD, "198.51.100.4")).toMatchObject({ ok: true });

    vi.setSystemTime(new Date(start.getTime() + 15 * 60_000 + 1000));
    expect(await attempt(throttle, TEST_PASSWORD)).toMatchObject({ ok: true, user: { email } });
  });

  it("lets the 10th attempt through, and a success starts the count again", async () => {
    const throttle = freshThrottle("t2");
    for (let i = 1; i <= 9; i++) await attempt(throttle, `wrong-${i}`);
    expect(await attempt(throttle, TEST_PASSWORD)).toMatchObject({ ok: true });
    for (let i = 1; i <= 9; i++) await attempt(throttle, `wrong-again-${i}`);
    expect(await attempt(throttle, TEST_PASSWORD)).toMatchObject({ ok: true });
  });

  it("counts failures per IP across e-mails, including unknown ones", async () => {
    const throttle = freshThrottle("t3", 4);
    for (const who of ["a@x.test", "b@x.test", "c@x.test", "d@x.test", "e@x.test"])
      expect(await attempt(throttle, "nope", "192.0.2.50", who)).toMatchObject({ reason: "invalid" });
    expect(await attempt(throttle, TEST_PASSWORD, "192.0.2.50", "other@shop.test")).toMatchObject({
      reason: "throttled",
    });
    expect(await attempt(throttle, TEST_PASSWORD, "192.0.2.51", "other@shop.test")).toMatchObject({
      ok: true,
    });
  });
});

describe("the sign-in page's action", () => {
  const form = (password: string) => {
    const fd = new FormData();
    fd.set("email", "other@shop.test");
    fd.set("password", password);
    fd.set("callbackUrl", "/admin/demo");
    return fd;
  };

  it("says why a sign-in failed, keeps the e-mail, blocks the 11th attempt, and signs in otherwise", async () => {
    setRequestHeaders({ "x-michi-peer": "203.0.113.99" });
    cookieJar.clear();
    for (let i = 1; i <= 10; i++) {
      const state = await signInAction({}, form(`wrong-${i}`));
      expect(state).toMatchObject({ ok: false, message: expect.stringMatching(/^Wrong e-mail or password/) });
      expect(state.values).toEqual({ email: "other@shop.test", callbackUrl: "/admin/demo" });
    }
    expect(await signInAction({}, form(TEST_PASSWORD))).toMatchObject({
      ok: false,
      message: "Too many attempts. Try again in 15 minutes.",
    });
    expect(cookieJar.get(sessionCookieName())).toBeUndefined();

    setRequestHeaders({ "x-michi-peer": "203.0.113.100" });
    expect(await outcome(() => signInAction({}, form(TEST_PASSWORD)))).toEqual({
      kind: "redirect",
      url: "/admin/demo",
    });
    expect(cookieJar.get(sessionCookieName())?.value).toMatch(/^ey/);
  });

  it("never sends the visitor off-site after sign-in", async () => {
    setRequestHeaders({ "x-michi-peer": "203.0.113.101" });
    const fd = form(TEST_PASSWORD);
    fd.set("callbackUrl", "https://evil.example/phish");
    expect(await outcome(() => signInAction({}, fd))).toEqual({ kind: "redirect", url: "/admin" });
  });
});

describe("next-auth's credentials provider", () => {
  it("uses the same throttle and reports the block as its error", async () => {
    const provider = authOptions().providers[0] as unknown as {
      options: {
        authorize(c: Record<string, string>, req: { headers: Record<string, string> }): Promise<unknown>;
      };
    };
    const req = { headers: { "x-michi-peer": "203.0.113.150" } };
    for (let i = 1; i <= 10; i++)
      expect(
        await provider.options.authorize({ email: "other@shop.test", password: `bad-${i}` }, req),
      ).toBeNull();
    await expect(
      provider.options.authorize({ email: "other@shop.test", password: TEST_PASSWORD }, req),
    ).rejects.toThrow("Too many attempts. Try again in 15 minutes.");
    const ok = await provider.options.authorize(
      { email: "other@shop.test", password: TEST_PASSWORD },
      { headers: { "x-michi-peer": "203.0.113.151" } },
    );
    expect(ok).toMatchObject({ email: "other@shop.test" });
  });
});
