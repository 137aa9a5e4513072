import AxeBuilder from "@axe-core/playwright";
import { expect, type Page, test } from "@playwright/test";
import { E2E } from "../support/e2e-env";
import { signIn, waitForHydration } from "./admin-support";

// A newcomer's journeys with no mail server: an owner invites a colleague, who creates an account (confirmed
// through a second mailed link) and accepts; a person signs up, confirms, and later resets a forgotten
// password; sign-up answers an address with an account like a new one. Each link is read from the mail that reached the world's SMTP
// server, after the operator's Outbox has listed it.

/** A sign-in through the form, for the accounts this spec creates (the seeded ones come from admin-support). */
async function signInThroughForm(page: Page, who: { email: string; password: string }) {
  await page.goto("/signin");
  await page.getByLabel("E-mail").fill(who.email);
  await page.getByLabel("Password", { exact: true }).fill(who.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(/\/admin(\/|$)/);
}

/**
 * The link in the newest mail to `to`. The e2e world sends through a real SMTP server of its own (the hand-off
 * spec needs one), so the operator's Outbox lists the mail as sent, and the link is read from the message that
 * arrived there (tests/support/e2e-handoff.ts). The Outbox's no-SMTP mode, which keeps the whole mail, is
 * covered by tests/integration/mail-send.test.ts.
 */
async function linkFromMail(page: Page, to: string, path: RegExp): Promise<string> {
  const listed = page
    .getByRole("article", { name: new RegExp(`^Mail to ${to.replace(/[.+]/g, "\\$&")}:`) })
    .first();
  // A reset link is mailed by a queued job after the answer (the answer must not wait for it), so the Outbox
  // is read again until the mail is listed, rather than once.
  await expect
    .poll(async () => {
      await page.goto("/admin/operator/outbox");
      return listed.count();
    })
    .toBeGreaterThan(0);
  await expect(listed).toContainText("sent");
  type Arrived = { to: string[]; text: string };
  let text = "";
  await expect
    .poll(async () => {
      const mails = (await (await fetch(`${E2E.inboxUrl}/mails`)).json()) as Arrived[];
      text = mails.filter((m) => m.to.includes(to)).at(-1)?.text ?? "";
      return text;
    })
    .toMatch(path);
  const href = text.match(/https?:\/\/\S+/g)?.find((u) => path.test(u));
  expect(href).toBeTruthy();
  return href!;
}

const here = (u: string) => `${new URL(u).pathname}${new URL(u).hash}`;

/**
 * A sign-up's second step: the confirmation link mailed to `email` (read by `reader`, a signed-in operator's
 * page), opened in `page` with the password chosen in the first step. Lands in the admin, signed in.
 */
async function confirmSignUp(page: Page, reader: Page, email: string, password: string) {
  const link = await linkFromMail(reader, email, /\/signup\/confirm#/);
  await page.goto(here(link));
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Finish creating your account");
  await expect(page).toHaveURL(/\/signup\/confirm$/);
  await page.getByLabel("Your password").fill(password);
  await page.getByRole("button", { name: "Create my account" }).click();
  await expect(page).toHaveURL(/\/admin\/[a-z0-9-]+$/);
}

const unique = () => `${Date.now().toString(36)}${test.info().repeatEachIndex}`;

test("an owner invites a colleague, who creates an account and accepts through the mailed link", async ({
  page,
  browser,
  context,
}) => {
  const email = `colleague-${unique()}@example.com`;
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  await signIn(page, E2E.operator);
  await page.goto(`/admin/${E2E.packs.slug}/team`);
  const inviteCard = page.locator("#invite");
  await inviteCard.getByLabel("E-mail").fill(email);
  await inviteCard.getByLabel("Role").selectOption("admin");
  await inviteCard.getByRole("button", { name: "Send invitation" }).click();
  await expect(inviteCard.getByRole("status").first()).toContainText(`Invitation sent to ${email} as admin`);
  // Shown once, with a copy button.
  const shown = inviteCard.getByLabel(`Invitation link for ${email} (shown only now)`);
  const link = await shown.inputValue();
  // The token rides in the fragment, which the browser never sends to a server.
  expect(link).toMatch(/\/invite#[A-Za-z0-9_-]{43}$/);
  await inviteCard.getByRole("button", { name: "Copy link" }).click();
  await expect(inviteCard.getByRole("status").filter({ hasText: "Copied" })).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(link);
  await expect(page.locator("#invitations")).toContainText(email);
  await page.reload();
  await expect(page.getByLabel(`Invitation link for ${email} (shown only now)`)).toHaveCount(0);

  const mailed = await linkFromMail(page, email, /\/invite#/);
  expect(mailed).toBe(link);

  // The colleague, in a browser of their own.
  const theirs = await browser.newContext();
  const them = await theirs.newPage();
  await them.goto(here(link));
  await expect(them.getByRole("heading", { level: 1 })).toHaveText("Join E2E Packs on michi-chat");
  // Read and taken out of the address bar (and so out of the history entry).
  await expect(them).toHaveURL(/\/invite$/);
  await them.getByLabel("Your name").fill("Cole League");
  await them.getByLabel("Choose a password").fill("colleague password 1");
  // Nothing is made yet: the link that finishes goes to the invited address, never to the inviter's screen.
  await them.getByRole("button", { name: "Create my account and join" }).click();
  await expect(them.getByRole("status")).toContainText(`Check your inbox: we sent a link to ${email}`);
  // Opening it makes the account, accepts the invitation, and they land in the business signed in.
  await confirmSignUp(them, page, email, "colleague password 1");
  await expect(them).toHaveURL(new RegExp(`/admin/${E2E.packs.slug}$`));

  // Used up: the same link now says so.
  await them.goto(here(link));
  await expect(them.locator("main").getByRole("alert")).toHaveText("This invitation has already been used.");
  await theirs.close();
});

test("a person signs up from the landing page and, once the mailed link is used, is signed in to their new business", async ({
  page,
  browser,
}) => {
  const email = `newcomer-${unique()}@example.com`;
  const business = `Nora's Noodles ${unique()}`;
  await page.goto("/");
  await page.getByRole("link", { name: "Create an account" }).click();
  await page.getByLabel("Your name").fill("Nora Newcomer");
  await page.getByLabel("E-mail").fill(email);
  await page.getByLabel("Business name").fill(business);
  await page.getByLabel("Password").fill("nora's password 1");
  await page.getByRole("button", { name: /Create/ }).click();
  await expect(page.getByRole("status")).toContainText(`Check your inbox: we sent a link to ${email}`);
  const operator = await browser.newContext();
  const operatorPage = await operator.newPage();
  await signIn(operatorPage, E2E.operator);
  await confirmSignUp(page, operatorPage, email, "nora's password 1");
  await operator.close();
  // Their business's Overview, not a sign-in form; and still there after a reload (a real session).
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(business);
  await expect(page.getByRole("heading", { name: "Setup checklist" })).toBeVisible();
  await page.reload();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(business);
  await expect(page.getByLabel("Password", { exact: true })).toHaveCount(0);
});

test("a person who forgot their password resets it through the mailed link; other sessions end", async ({
  page,
  browser,
}) => {
  const email = `forgetful-${unique()}@example.com`;
  await page.goto("/signup");
  await page.getByLabel("Your name").fill("Fay Forgetful");
  await page.getByLabel("E-mail").fill(email);
  await page.getByLabel("Business name").fill(`Fay's ${unique()}`);
  await page.getByLabel("Password").fill("the old password 1");
  await page.getByRole("button", { name: /Create/ }).click();
  await expect(page.getByRole("status")).toContainText(`Check your inbox: we sent a link to ${email}`);
  const operator = await browser.newContext();
  const operatorPage = await operator.newPage();
  await signIn(operatorPage, E2E.operator);
  await confirmSignUp(page, operatorPage, email, "the old password 1");

  // Elsewhere, the password is forgotten.
  const other = await browser.newContext();
  const there = await other.newPage();
  await there.goto("/signin");
  await there.getByRole("link", { name: "Forgot password?" }).click();
  await expect(there).toHaveURL(/\/signin\/forgot$/);
  await there.getByLabel("E-mail").fill(email);
  await there.getByRole("button", { name: "Send me a link" }).click();
  // The same words an unknown address gets (tests/integration/password-reset.test.ts compares them).
  await expect(there.getByRole("status")).toContainText(`If ${email} has a michi-chat account, a link`);

  const link = await linkFromMail(operatorPage, email, /\/signin\/reset#/);
  await operator.close();
  await there.goto(`${new URL(link).pathname}${new URL(link).hash}`);
  await expect(there.getByText(`For ${email}.`)).toBeVisible();
  await there.getByLabel("New password", { exact: true }).fill("the new password 2");
  await there.getByLabel("New password again").fill("the new password 2");
  await there.getByRole("button", { name: "Set new password" }).click();
  await expect(there).toHaveURL(/\/signin\?reset=1$/);
  await expect(there.getByRole("status")).toContainText("Your password was changed");
  await signInThroughForm(there, { email, password: "the new password 2" });

  // The first browser's session was signed out by the reset.
  await page.reload();
  await expect(page).toHaveURL(/\/signin/);
  await other.close();
});

const axeFaults = async (page: Page, path: string, within?: string) => {
  await page.goto(path);
  // A link page fetches its view once it has read the fragment; check the view, not the loading words.
  if (path.includes("#")) await expect(page.locator("main").getByRole("alert")).toBeVisible();
  const builder = new AxeBuilder({ page });
  const result = await (within ? builder.include(within) : builder).analyze();
  return result.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => ({ path, id: v.id, nodes: v.nodes.map((n) => n.target) }));
};

for (const colorScheme of ["light", "dark"] as const) {
  test.describe(`accessibility, ${colorScheme}`, () => {
    test.use({ colorScheme });

    test("the password, invitation and sign-up confirmation pages have no serious faults", async ({
      page,
    }) => {
      for (const path of [
        "/signin/forgot",
        "/signin/reset#not-a-real-link",
        "/invite#not-a-real-link",
        "/signup/confirm#not-a-real-link",
      ])
        expect(await axeFaults(page, path)).toEqual([]);
    });

    test("the Team and Outbox pages have no serious faults", async ({ page }) => {
      await signIn(page, E2E.operator);
      for (const path of [`/admin/${E2E.packs.slug}/team`, "/admin/operator/outbox"])
        expect(await axeFaults(page, path, "main")).toEqual([]);
    });
  });
}

test("the operator creates a business for a new owner, who is e-mailed an invitation and lands in it once the address is confirmed", async ({
  page,
  browser,
}) => {
  const id = unique();
  const email = `new-owner-${id}@example.com`;
  const name = `Olga's Bakery ${id}`;
  await signIn(page, E2E.operator);
  await page.goto("/admin/operator");
  const form = page.locator("#create");
  // The address is derived by React as the name is typed: typing before it hydrates leaves it empty.
  await waitForHydration(form.getByLabel("Business name"));
  await form.getByLabel("Business name").fill(name);
  // The address follows the name as sign-up derives it, and stays editable.
  const slug = form.getByLabel("Address (slug)");
  await expect(slug).toHaveValue(`olga-s-bakery-${id}`);
  await form.getByLabel("Owner's e-mail").fill(email);
  await form.getByRole("button", { name: "Create business" }).click();
  await expect(form.getByRole("status").first()).toContainText(
    `An invitation to become its owner was e-mailed to ${email}`,
  );
  // No password to hand over: mail is on.
  await expect(form.getByLabel("One-time password")).toHaveCount(0);

  const link = await linkFromMail(page, email, /\/invite#/);
  // Olga's browser is in Madrid; the business the operator made starts in UTC.
  const theirs = await browser.newContext({ timezoneId: "Europe/Madrid" });
  const them = await theirs.newPage();
  await them.goto(`${new URL(link).pathname}${new URL(link).hash}`);
  await expect(them.getByRole("heading", { level: 1 })).toHaveText(`Join ${name} on michi-chat`);
  await them.getByLabel("Your name").fill("Olga Owner");
  await them.getByLabel("Choose a password").fill("olga's password 1");
  await them.getByRole("button", { name: "Create my account and join" }).click();
  await confirmSignUp(them, page, email, "olga's password 1");
  await expect(them).toHaveURL(new RegExp(`/admin/olga-s-bakery-${id}$`));
  // On her first visit she is offered her browser's zone for the business's dates, once.
  const offer = them.locator("#time-zone-offer");
  await expect(offer).toContainText("Dates here are shown in UTC");
  await offer.getByRole("button", { name: "Use Europe/Madrid" }).click();
  await expect(offer.getByRole("status")).toContainText("Dates are now shown in Europe/Madrid.");
  await them.reload();
  await expect(them.locator("#time-zone-offer")).toHaveCount(0);
  await them.goto(`/admin/olga-s-bakery-${id}/settings`);
  await expect(them.getByRole("combobox", { name: "Time zone" })).toHaveValue("Europe/Madrid");
  await them.goto(`/admin/olga-s-bakery-${id}/audit`);
  await expect(them.getByRole("columnheader", { name: "When", exact: true })).toBeVisible();
  await expect(them.locator("main time").first()).toHaveText(/ CES?T$/);
  // Signed in as the owner: the Team page, for owners only, opens and lists them.
  await them.goto(`/admin/olga-s-bakery-${id}/team`);
  await expect(them.locator("main")).toContainText(email);
  await theirs.close();
});

test("sign-up answers an address that has an account exactly like a new one, and signs nobody in", async ({
  browser,
}) => {
  const fresh = `fresh-${unique()}@example.com`;
  const answer = async (email: string) => {
    const ctx = await browser.newContext();
    const page = await ctx.newPage();
    await page.goto("/signup");
    await waitForHydration(page.getByLabel("Your name"));
    await page.getByLabel("Your name").fill("Sam Same");
    await page.getByLabel("E-mail").fill(email);
    await page.getByLabel("Business name").fill(`Same ${unique()}`);
    await page.getByLabel("Password").fill("a sign-up password 1");
    // The server action's HTTP answer, as the browser got it.
    const posted = page.waitForResponse(
      (r) => r.request().method() === "POST" && r.url().endsWith("/signup"),
    );
    await page.getByRole("button", { name: /Create/ }).click();
    const res = await posted;
    await expect(page.getByRole("status")).toContainText("Check your inbox");
    const words = (await page.getByRole("status").textContent())?.replace(email, "EMAIL");
    const seen = { status: res.status(), url: page.url(), words };
    // Nothing to sign in with yet: the admin still asks for a sign-in.
    await page.goto("/admin");
    await expect(page).toHaveURL(/\/signin/);
    await ctx.close();
    return seen;
  };
  const known = await answer(E2E.operator.email);
  const unknown = await answer(fresh);
  expect(known).toEqual(unknown);
  expect(known.words).toContain("Check your inbox: we sent a link to EMAIL to finish.");
  // After the answer, the job looked: the account's owner is told so, the new address gets the link.
  type Arrived = { to: string[]; text: string };
  const lastTo = async (to: string) =>
    ((await (await fetch(`${E2E.inboxUrl}/mails`)).json()) as Arrived[])
      .filter((m) => m.to.includes(to))
      .at(-1)?.text ?? "";
  await expect.poll(() => lastTo(fresh)).toMatch(/\/signup\/confirm#[A-Za-z0-9_-]{43}/);
  await expect.poll(() => lastTo(E2E.operator.email)).toMatch(/already has one/);
  expect(await lastTo(E2E.operator.email)).not.toMatch(/#[A-Za-z0-9_-]{43}/);
});
