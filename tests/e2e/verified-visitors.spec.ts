import { expect, type FrameLocator, test } from "@playwright/test";
import { SignJWT } from "jose";
import { E2E } from "../support/e2e-env";
import { hostPageAt } from "../support/host-page";
import { signedInContext } from "./admin-support";
import { model, panelOf } from "./widget-helpers";

// Issue 41 item 4 on the production build: the business's site signs a token for its signed-in visitor on its
// server and hands it to the widget with michi("identify", token) before the loader arrives. The chat then
// runs as that person (the business sees a Verified label with their name in Conversations); a token signed
// with any other secret is refused, in the visitor's language, as soon as the panel opens, and nothing is asked
// of the model.

test.describe.configure({ mode: "serial" });

const host = hostPageAt(E2E.hostPageOrigin);
const KEY = E2E.verified.widgetKey;

/** What the site's server does (docs/widget.md "Verified visitors"): HS256, sub, email, name, exp. */
async function signToken(secret: string, claims: { sub: string; email: string; name: string }) {
  return new SignJWT(claims)
    .setProtectedHeader({ alg: "HS256" })
    .setExpirationTime(Math.floor(Date.now() / 1000) + 3600)
    .sign(new TextEncoder().encode(secret));
}

async function ask(panel: FrameLocator, text: string) {
  const input = panel.getByRole("textbox", { name: /Your message|Tu mensaje/ });
  await input.fill(text);
  await input.press("Enter");
}

test.beforeEach(async () => {
  await model.reset();
  await model.setRules([{ match: "hello", steps: [{ type: "text", text: "Hello! How can I help?" }] }]);
});

test("a signed-in visitor chats as themselves, and the business sees who it is", async ({ browser }) => {
  const name = `Ana Verified ${Date.now().toString(36)}`;
  const token = await signToken(E2E.identitySecret, { sub: `cust-${name}`, email: "ana@example.com", name });
  const page = await (await browser.newContext()).newPage();
  await page.goto(host.url({ key: KEY, identify: token }));
  await page.getByRole("button", { name: "Open chat" }).click();
  const panel = panelOf(page, KEY);
  await ask(panel, "hello there");
  await expect(panel.locator(".msg.bot .bubble").last()).toHaveText("Hello! How can I help?");

  const admin = await signedInContext(browser, E2E.operator);
  await admin.goto(`${E2E.appUrl}/admin/${E2E.verified.slug}/conversations`);
  const label = admin.locator("[data-verified-visitor]").filter({ hasText: name });
  await expect(label).toBeVisible();
  await expect(label).toContainText("Verified");
});

test("a forged token is refused in the visitor's language as soon as the panel opens", async ({
  browser,
}) => {
  const forged = await signToken("not-the-business-secret-0123456789abcdef-0123", {
    sub: "cust-mallory",
    email: "mallory@example.com",
    name: "Mallory",
  });
  const page = await (await browser.newContext()).newPage();
  await page.goto(host.url({ key: KEY, identify: forged, lang: "es" }));
  await page.getByRole("button", { name: "Abrir el chat" }).click();
  const panel = panelOf(page, KEY);
  await expect(panel.getByText(/No pudimos confirmar que has iniciado sesión/)).toBeVisible();
  // Never treated as an anonymous visitor: a message is refused too, and the model is never asked.
  await ask(panel, "hello, who am I?");
  await expect(panel.getByText(/No pudimos confirmar que has iniciado sesión/).first()).toBeVisible();
  expect(await model.requests()).toHaveLength(0);
});
