import { type Browser, expect, test } from "@playwright/test";
import { E2E } from "../support/e2e-env";
import { ownInstance, rawRequest, signInAt } from "./own-instance";

// The hardening of docs/security.md on a production instance of its own, logging at debug:
// - request targets the platform does not serve (absolute form, "//host", malformed escapes) get a 400, never
//   a redirect to another host or a 500, whether the path is one the server serves itself or Next's;
// - an invitation (with its sign-up confirmation) and a password reset run end to end through the browser,
//   their tokens are also tried in the path form (and broken ones), and then no token appears anywhere in what
//   the server wrote (stdout and stderr: access lines, the platform's log, Next's own output). This one stops
//   the server, so it runs last.

test.describe.configure({ mode: "serial", timeout: 180_000 });

const srv = ownInstance("secret-logs", { MICHI_MAIL_OUTBOX: "true", MICHI_LOG_LEVEL: "debug" });

/** The link in the newest kept mail to `to`, read from the operator's Outbox (the mail is kept whole). */
async function linkFromOutbox(browser: Browser, to: string, pattern: RegExp): Promise<string> {
  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  await signInAt(srv.base, page, E2E.operator);
  let link = "";
  await expect
    .poll(
      async () => {
        await page.goto(`${srv.base}/admin/operator/outbox`);
        const mail = page.getByRole("article", {
          name: new RegExp(`^Mail to ${to.replace(/[.+]/g, "\\$&")}:`),
        });
        const text = (await mail.count()) ? ((await mail.first().textContent()) ?? "") : "";
        link = text.match(/https?:\/\/\S+/g)?.find((u) => pattern.test(u)) ?? "";
        return link;
      },
      { timeout: 30_000 },
    )
    .toMatch(pattern);
  await ctx.close();
  return link;
}

test("a request target that is not a plain path on this server gets 400: no foreign redirect, no 500", async () => {
  const port = srv.port;
  const key = /data-michi-key="([^"]+)"/.exec(await (await fetch(`${srv.base}/demo`)).text())?.[1];
  expect(key).toBeTruthy();
  const lines = [
    // The red-team's finding: Next answered 308 to http://evil.test/….
    `POST http://evil.test/api/widget/${key}/session HTTP/1.1\r\nHost: evil.test\r\nContent-Length: 0`,
    `GET http://evil.test/admin HTTP/1.1\r\nHost: 127.0.0.1:${port}`,
    `GET https://evil.test/ HTTP/1.1\r\nHost: 127.0.0.1:${port}`,
    `GET //evil.test/ HTTP/1.1\r\nHost: 127.0.0.1:${port}`,
    `GET //evil.test/admin/ HTTP/1.1\r\nHost: 127.0.0.1:${port}`,
    // Malformed escapes: a route the server serves itself, and ones Next serves.
    `POST /api/widget/%E0%A4%A/session HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Length: 0`,
    `POST /api/widget/${key}%/chat HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Length: 0`,
    `GET /api/widget/${key}/conversations/%E0%A4%A HTTP/1.1\r\nHost: 127.0.0.1:${port}`,
    `POST /api/widget/%zz/contact HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Length: 0`,
  ];
  for (const line of lines) {
    const r = await rawRequest(port, line);
    expect(r.status, line).toBe(400);
    expect(r.head, line).not.toMatch(/^location:/im);
  }
  // An ordinary request still works.
  const ok = await rawRequest(port, `GET /api/live HTTP/1.1\r\nHost: 127.0.0.1:${port}`);
  expect(ok.status).toBe(200);
});

const tokenOf = (link: string) => new URL(link).hash.slice(1);
const local = (link: string) => `${srv.base}${new URL(link).pathname}${new URL(link).hash}`;

test("no reset, invitation or sign-up confirmation token reaches any line the server writes", async ({
  page,
  browser,
}) => {
  const colleague = `colleague-${Date.now().toString(36)}@example.com`;
  await signInAt(srv.base, page, E2E.operator);
  await page.goto(`${srv.base}/admin/demo/team`);
  const inviteCard = page.locator("#invite");
  await inviteCard.getByLabel("E-mail").fill(colleague);
  await inviteCard.getByLabel("Role").selectOption("admin");
  await inviteCard.getByRole("button", { name: "Send invitation" }).click();
  const invitation = await inviteCard
    .getByLabel(`Invitation link for ${colleague} (shown only now)`)
    .inputValue();
  expect(await linkFromOutbox(browser, colleague, /\/invite#/)).toBe(invitation);
  const inviteToken = tokenOf(invitation);
  expect(inviteToken).toMatch(/^[A-Za-z0-9_-]{43}$/);

  // The colleague opens the link and makes an account, which accepts and signs them in.
  const theirs = await browser.newContext();
  const them = await theirs.newPage();
  await them.goto(local(invitation));
  await expect(them.getByRole("heading", { level: 1 })).toHaveText("Join Michi Café (demo) on michi-chat");
  await them.getByLabel("Your name").fill("Cole League");
  await them.getByLabel("Choose a password").fill("colleague password 1");
  await them.getByRole("button", { name: "Create my account and join" }).click();
  await expect(them.getByRole("status")).toContainText(`Check your inbox: we sent a link to ${colleague}`);
  // The account is made only through the link mailed to the colleague's address, whose token is a secret too.
  const confirm = await linkFromOutbox(browser, colleague, /\/signup\/confirm#/);
  const confirmToken = tokenOf(confirm);
  expect(confirmToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
  await them.goto(local(confirm));
  await expect(them).toHaveURL(/\/signup\/confirm$/);
  await them.getByLabel("Your password").fill("colleague password 1");
  await them.getByRole("button", { name: "Create my account" }).click();
  await expect(them).toHaveURL(/\/admin\/demo$/);

  // The colleague forgets the password and resets it.
  const forgetful = await browser.newContext();
  const there = await forgetful.newPage();
  await there.goto(`${srv.base}/signin/forgot`);
  await there.getByLabel("E-mail").fill(colleague);
  await there.getByRole("button", { name: "Send me a link" }).click();
  await expect(there.getByRole("status")).toContainText(`If ${colleague} has a michi-chat account`);
  const reset = await linkFromOutbox(browser, colleague, /\/signin\/reset#/);
  const resetToken = tokenOf(reset);
  expect(resetToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
  // The old path form still works (links mailed before), by way of the fragment.
  await there.goto(`${srv.base}/signin/reset/${resetToken}`);
  await expect(there.getByText(`For ${colleague}.`)).toBeVisible();
  await expect(there).toHaveURL(/\/signin\/reset$/);
  await there.getByLabel("New password", { exact: true }).fill("the new password 2");
  await there.getByLabel("New password again").fill("the new password 2");
  await there.getByRole("button", { name: "Set new password" }).click();
  await expect(there).toHaveURL(/\/signin\?reset=1$/);

  // Both tokens in paths the way a hand-edited or mangled link would carry them, and in a sign-in callback.
  for (const p of [
    `/invite/${inviteToken}`,
    `/invite/${inviteToken}/x?y=1`,
    `/signin/reset/${resetToken}%`,
    `/signup/confirm/${confirmToken}`,
    `/invite/${inviteToken}%E0%A4%A`,
    `/signin?callbackUrl=${encodeURIComponent(`/invite/${inviteToken}`)}`,
  ])
    await fetch(`${srv.base}${p}`, { redirect: "manual" });

  await theirs.close();
  await forgetful.close();
  const exited = new Promise<number | null>((resolve) => srv.child.once("exit", (code) => resolve(code)));
  srv.child.kill("SIGTERM"); // flushes what pino still gathers
  expect(await exited).toBe(0);

  const written = srv.logs();
  // The requests were logged (so the check below looks at real lines), with the secret segment redacted.
  expect(written).toContain('"route":"/invite/[redacted]"');
  expect(written).toContain('"route":"/signin/reset/[redacted]"');
  expect(written).toContain('"route":"/signup/confirm/[redacted]"');
  for (const token of [inviteToken, resetToken, confirmToken]) {
    expect(written).not.toContain(token);
    expect(written).not.toContain(token.slice(0, 20));
  }
});
