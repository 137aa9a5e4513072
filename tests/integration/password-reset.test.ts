import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { installTestDb } from "../support/admin-env";
import { actAs, outcome, setRequestHeaders } from "../support/admin-mocks";
import { makeUser, TEST_PASSWORD } from "../support/admin-world";
import type { TestDb } from "../support/db";
import { startTestMailQueue } from "../support/mail-queue";
import { startSmtpServer, type TestSmtpServer, useSmtp } from "../support/smtp-server";

vi.mock("@/lib/auth/claims", () => import("../support/admin-mocks").then((m) => m.claimsModule));
vi.mock("next/headers", () => import("../support/admin-mocks").then((m) => m.headersModule));
vi.mock("next/cache", () => import("../support/admin-mocks").then((m) => m.cacheModule));

const { requestResetAction } = await import("@/app/signin/forgot/actions");
const { resetPasswordAction } = await import("@/app/signin/reset/form-actions");
const { checkResetLink, mailPasswordReset } = await import("@/lib/accounts/password-reset");
const { currentUser } = await import("@/lib/auth/access");
const { authenticate } = await import("@/lib/auth/credentials");
const { signInThrottle } = await import("@/lib/auth/throttle");
const { listOutbox } = await import("@/lib/db/queries/outbox");
const { passwordResets, users } = await import("@/lib/db/schema");

let t: TestDb;
let smtp: TestSmtpServer;
let queue: Awaited<ReturnType<typeof startTestMailQueue>>;

const fd = (v: Record<string, string>) => {
  const f = new FormData();
  for (const [k, val] of Object.entries(v)) f.set(k, val);
  return f;
};
const fromIp = (ip: string) => setRequestHeaders({ "x-michi-peer": ip });
const linkIn = (text: string | null | undefined) => {
  const m = /\/signin\/reset#([A-Za-z0-9_-]{43})\b/.exec(text ?? "");
  expect(m, `a reset link in: ${text}`).not.toBeNull();
  return m![1]!;
};
const signInWorks = async (email: string, password: string, ip: string) =>
  (await authenticate(t.handle.platform, { email, password, ip }, signInThrottle())).ok;
const mailsTo = async (to: string) =>
  (await listOutbox(t.handle.platform, 200)).filter((m) => m.toAddress === to);

beforeAll(async () => {
  t = await installTestDb();
  useSmtp(null);
  smtp = await startSmtpServer();
  queue = await startTestMailQueue(t.handle);
});
afterAll(async () => {
  await queue?.stop();
  useSmtp(null);
  await smtp?.close();
  await t?.close();
});

describe("asking for a link", () => {
  it("answers the same whether or not the address has an account; only an account gets a mail", async () => {
    await makeUser(t.handle, "known@reset.test");
    fromIp("192.0.2.50");
    const known = await requestResetAction({}, fd({ email: "Known@Reset.test" }));
    const unknown = await requestResetAction({}, fd({ email: "ghost@reset.test" }));
    const words = (s: typeof known) => ({ ok: s.ok, message: s.message?.replace(/\S+@\S+/, "EMAIL") });
    expect(words(known)).toEqual(words(unknown));
    expect(known).toMatchObject({ ok: true, message: expect.stringMatching(/If known@reset\.test has/) });
    expect(await mailsTo("ghost@reset.test")).toEqual([]);
    // The mail goes out after the answer, from the queue; it lands in the Outbox (no SMTP here) within moments.
    await expect.poll(async () => (await mailsTo("known@reset.test")).length).toBe(1);
    const [mail] = await mailsTo("known@reset.test");
    expect(mail).toMatchObject({ kind: "password_reset", status: "kept", tenantId: null });
    expect(await checkResetLink(t.handle, linkIn(mail!.bodyText))).toEqual({ email: "known@reset.test" });
    // Only a hash is stored.
    const rows = await t.handle.platform.select().from(passwordResets);
    expect(JSON.stringify(rows)).not.toContain(linkIn(mail!.bodyText));
  });

  it("sends at most three mails an hour to one address, answering the same past that", async () => {
    await makeUser(t.handle, "flooded@reset.test");
    for (let i = 0; i < 5; i++) {
      await mailPasswordReset(t.handle, {
        email: "flooded@reset.test",
        requestedAt: new Date().toISOString(),
      });
    }
    expect(await mailsTo("flooded@reset.test")).toHaveLength(3);
  });

  it("sends nothing for a request that waited in the queue longer than a link would be valid", async () => {
    await makeUser(t.handle, "stale@reset.test");
    const requestedAt = new Date(Date.now() - 61 * 60_000).toISOString();
    await mailPasswordReset(t.handle, { email: "stale@reset.test", requestedAt });
    expect(await mailsTo("stale@reset.test")).toEqual([]);
  });

  it("tries again when the mail server refuses, so a short outage loses no link", async () => {
    await makeUser(t.handle, "retry@reset.test");
    useSmtp("smtp://127.0.0.1:9"); // nothing listens on the discard port
    try {
      await expect(
        mailPasswordReset(t.handle, { email: "retry@reset.test", requestedAt: new Date().toISOString() }),
      ).rejects.toThrow(/could not be sent/);
    } finally {
      useSmtp(null);
    }
    expect((await mailsTo("retry@reset.test")).map((m) => m.status)).toEqual(["failed"]);
  });

  it("limits requests from one network, saying so", async () => {
    fromIp("192.0.2.70");
    const answers = [];
    for (let i = 0; i < 11; i++)
      answers.push(await requestResetAction({}, fd({ email: `n${i}@reset.test` })));
    expect(answers.slice(0, 10).every((a) => a.ok)).toBe(true);
    expect(answers[10]).toMatchObject({ ok: false, message: expect.stringMatching(/Too many attempts/) });
  });
});

describe("setting a new password", () => {
  it("works once through the mailed link, signs out every session and opens the new password", async () => {
    useSmtp(smtp.url);
    try {
      const user = await makeUser(t.handle, "mia@reset.test", { mustChangePassword: true });
      fromIp("192.0.2.80");
      expect(await requestResetAction({}, fd({ email: "mia@reset.test" }))).toMatchObject({ ok: true });
      const [mail] = await smtp.waitFor(1);
      expect(mail!.envelope.to).toEqual(["mia@reset.test"]);
      expect(mail!.subject).toBe("Reset your michi-chat password");
      const token = linkIn(mail!.text);
      expect(mail!.text).toContain(`http://localhost:3999/signin/reset#${token}`);

      actAs(user); // a session from before the reset
      expect(await currentUser(t.handle)).not.toBeNull();
      const mismatch = await resetPasswordAction(
        {},
        fd({ token, newPassword: "brand new password", confirmPassword: "brand new passwort" }),
      );
      expect(mismatch).toMatchObject({
        ok: false,
        fieldErrors: { confirmPassword: "The two passwords are not the same" },
      });
      const done = await outcome(() =>
        resetPasswordAction(
          {},
          fd({ token, newPassword: "brand new password", confirmPassword: "brand new password" }),
        ),
      );
      expect(done).toEqual({ kind: "redirect", url: "/signin?reset=1" });
      expect(await currentUser(t.handle)).toBeNull();
      const [row] = await t.handle.platform.select().from(users).where(eq(users.id, user.id));
      expect(row).toMatchObject({ mustChangePassword: false, sessionVersion: user.sessionVersion + 1 });
      expect(await signInWorks("mia@reset.test", TEST_PASSWORD, "192.0.2.81")).toBe(false);
      expect(await signInWorks("mia@reset.test", "brand new password", "192.0.2.81")).toBe(true);

      // Single use.
      const again = await resetPasswordAction(
        {},
        fd({ token, newPassword: "third password!", confirmPassword: "third password!" }),
      );
      expect(again).toMatchObject({ ok: false, message: expect.stringMatching(/not valid any more/) });
      expect(await signInWorks("mia@reset.test", "brand new password", "192.0.2.81")).toBe(true);
    } finally {
      useSmtp(null);
    }
  });

  it("ends every other link of the account once one is used", async () => {
    await makeUser(t.handle, "two@reset.test");
    fromIp("192.0.2.90");
    for (let i = 0; i < 2; i++)
      await mailPasswordReset(t.handle, { email: "two@reset.test", requestedAt: new Date().toISOString() });
    const [second, first] = await mailsTo("two@reset.test");
    const used = linkIn(first!.bodyText);
    const other = linkIn(second!.bodyText);
    expect(
      await outcome(() =>
        resetPasswordAction(
          {},
          fd({ token: used, newPassword: "another password", confirmPassword: "another password" }),
        ),
      ),
    ).toMatchObject({ kind: "redirect" });
    expect(await checkResetLink(t.handle, other)).toBeNull();
  });

  it("refuses an expired link", async () => {
    await makeUser(t.handle, "late@reset.test");
    const longAgo = new Date(Date.now() - 61 * 60_000);
    await mailPasswordReset(
      t.handle,
      { email: "late@reset.test", requestedAt: longAgo.toISOString() },
      longAgo,
    );
    const [mail] = await mailsTo("late@reset.test");
    const token = linkIn(mail!.bodyText);
    expect(await checkResetLink(t.handle, token)).toBeNull();
    fromIp("192.0.2.91");
    const r = await resetPasswordAction(
      {},
      fd({ token, newPassword: "too late password", confirmPassword: "too late password" }),
    );
    expect(r).toMatchObject({ ok: false, message: expect.stringMatching(/expired/) });
    expect(await signInWorks("late@reset.test", TEST_PASSWORD, "192.0.2.92")).toBe(true);
  });

  it("throttles submissions from one network", async () => {
    fromIp("192.0.2.99");
    const answers = [];
    const form = {
      token: "y".repeat(42),
      newPassword: "whatever password",
      confirmPassword: "whatever password",
    };
    for (let i = 0; i < 21; i++) answers.push(await resetPasswordAction({}, fd(form)));
    expect(answers.slice(0, 20).every((a) => /not valid any more/.test(a.message ?? ""))).toBe(true);
    expect(answers[20]).toMatchObject({ ok: false, message: expect.stringMatching(/Too many attempts/) });
  });
});
