import { createServer } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { installTestDb } from "../support/admin-env";
import type { TestDb } from "../support/db";
import { startSmtpServer, type TestSmtpServer, useSmtp } from "../support/smtp-server";

const { mailDelivery, sendMail } = await import("@/lib/mail/send");
const { listOutbox } = await import("@/lib/db/queries/outbox");
const { forgetOldMail, OUTBOX_DAYS } = await import("@/lib/mail/outbox");
const { makeTenant, makeUser } = await import("../support/admin-world");

let t: TestDb;
let smtp: TestSmtpServer;

beforeAll(async () => {
  t = await installTestDb();
  smtp = await startSmtpServer({ user: "mailer", password: "p@ss word" });
});
afterAll(async () => {
  useSmtp(null);
  await smtp?.close();
  await t?.close();
});
afterEach(() => smtp.rejectWith(null));

const newest = async () => (await listOutbox(t.handle.platform, 1))[0]!;

describe("sendMail over SMTP", () => {
  it("delivers through MICHI_SMTP_URL with its credentials, from MICHI_MAIL_FROM, and records the envelope only", async () => {
    useSmtp(smtp.url, { from: "Café Michi <hello@cafe.test>" });
    expect(mailDelivery()).toBe("smtp");
    const owner = await makeUser(t.handle, "owner@mail-a.test");
    const tenant = await makeTenant(t.handle, "mail-a", [[owner, "owner"]]);
    const before = smtp.received.length;
    const r = await sendMail({
      to: "Guest@Example.test",
      subject: "Ein Gast möchte reservieren",
      text: "Hallo!\nLink: https://chat.example/x/abc",
      html: "<p>Hallo!</p>",
      kind: "lead",
      tenantId: tenant.id,
      replyTo: "visitor@example.test",
    });
    expect(r).toMatchObject({ status: "sent", delivery: "smtp" });
    const mail = (await smtp.waitFor(before + 1))[before]!;
    // nodemailer lower-cases the domain of an address it sends to (domains are case-insensitive).
    expect(mail.envelope).toEqual({ from: "hello@cafe.test", to: ["Guest@example.test"], user: "mailer" });
    expect(mail.subject).toBe("Ein Gast möchte reservieren");
    expect(mail.from?.value[0]).toMatchObject({ name: "Café Michi", address: "hello@cafe.test" });
    expect(mail.replyTo?.value[0]?.address).toBe("visitor@example.test");
    expect(mail.text?.trim()).toBe("Hallo!\nLink: https://chat.example/x/abc");
    expect(mail.html).toContain("<p>Hallo!</p>");
    const row = await newest();
    expect(row).toMatchObject({
      id: r.id,
      tenantId: tenant.id,
      kind: "lead",
      toAddress: "Guest@Example.test",
      status: "sent",
      bodyText: null,
    });
  });

  it("reports a refused login as failed without the password, and nothing arrives", async () => {
    const wrong = smtp.url.replace("p%40ss%20word", "wrong");
    expect(wrong).not.toBe(smtp.url);
    useSmtp(wrong);
    const before = smtp.received.length;
    const r = await sendMail({ to: "a@b.test", subject: "Hi", text: "Hi", kind: "live_waiting" });
    expect(r.status).toBe("failed");
    expect(r.error).toMatch(/EAUTH/);
    expect(r.error).not.toContain("wrong");
    expect(smtp.received.length).toBe(before);
    expect(await newest()).toMatchObject({ status: "failed", bodyText: null });
  });

  it("reports a mailbox the server refuses as failed", async () => {
    useSmtp(smtp.url);
    smtp.rejectWith(550);
    const r = await sendMail({ to: "a@b.test", subject: "Hi", text: "Hi", kind: "live_waiting" });
    expect(r.status).toBe("failed");
    expect(r.error).toMatch(/550/);
  });

  it("reports a server that is not there as failed (the caller is not left hanging)", async () => {
    // A port that was free a moment ago: nothing listens on it.
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, "127.0.0.1", () => r()));
    const port = (probe.address() as { port: number }).port;
    await new Promise<void>((r) => probe.close(() => r()));
    useSmtp(`smtp://127.0.0.1:${port}`);
    const r = await sendMail({ to: "a@b.test", subject: "Hi", text: "Hi", kind: "live_waiting" });
    expect(r).toMatchObject({ status: "failed" });
    expect(r.error).toMatch(/ECONNECTION|ECONNREFUSED/);
  });
});

describe("sendMail without SMTP", () => {
  it("keeps the whole mail for the operator's Outbox outside production", async () => {
    useSmtp(null);
    expect(mailDelivery()).toBe("outbox");
    const before = smtp.received.length;
    const r = await sendMail({
      to: "new@person.test",
      subject: "Reset your password",
      text: "Open http://localhost:3999/reset-password/abc",
      kind: "password_reset",
    });
    expect(r).toMatchObject({ status: "kept", delivery: "outbox" });
    expect(await newest()).toMatchObject({
      status: "kept",
      tenantId: null,
      bodyText: "Open http://localhost:3999/reset-password/abc",
    });
    expect(smtp.received.length).toBe(before);
  });

  it("drops the mail and records that mail is off when the Outbox is switched off", async () => {
    useSmtp(null, { outbox: false });
    expect(mailDelivery()).toBe("off");
    const r = await sendMail({ to: "x@y.test", subject: "Hi", text: "secret link", kind: "invitation" });
    expect(r.status).toBe("off");
    expect(await newest()).toMatchObject({ status: "off", bodyText: null });
  });

  it("refuses a subject with a line break (header injection) and a malformed address", async () => {
    useSmtp(null);
    await expect(
      sendMail({ to: "x@y.test", subject: "Hi\r\nBcc: all@evil.test", text: "t", kind: "lead" }),
    ).rejects.toMatchObject({ code: "invalid_input" });
    await expect(
      sendMail({ to: "not an address", subject: "Hi", text: "t", kind: "lead" }),
    ).rejects.toMatchObject({
      code: "invalid_input",
    });
  });
});

describe("the outbox record", () => {
  it("is forgotten after OUTBOX_DAYS by the retention job's purge, not before", async () => {
    useSmtp(null);
    await sendMail({ to: "old@mail.test", subject: "Old", text: "old", kind: "lead" });
    const count = (await listOutbox(t.handle.platform, 1000)).length;
    expect(count).toBeGreaterThan(0);
    const day = 24 * 60 * 60 * 1000;
    expect(await forgetOldMail(t.handle, new Date(Date.now() + (OUTBOX_DAYS - 1) * day))).toBe(0);
    expect(await forgetOldMail(t.handle, new Date(Date.now() + (OUTBOX_DAYS + 1) * day))).toBe(count);
    expect(await listOutbox(t.handle.platform, 1000)).toEqual([]);
  });
});
