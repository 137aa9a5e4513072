import { expect, type Page, test } from "@playwright/test";
import { E2E } from "../support/e2e-env";
import { hostPageAt } from "../support/host-page";
import { CAFE, model, panelFrame, panelOf } from "./widget-helpers";

// Issue 30 item 1: the conversation survives a reload and a second page of the business's site even when the
// panel frame may not use its storage, because the loader keeps the visitor token and conversation id in the
// host page's own (first-party) storage.
//
// How the frame's storage is refused: an init script makes `localStorage` throw a SecurityError in the panel's
// frames only (the platform origin, not the top page). That is what Safari with "Block all cookies" and
// Chromium or Brave with site data blocked for third parties do to a third-party frame (reading the property
// throws), and it has the same effect as Brave's ephemeral and Safari's partitioned storage for this test:
// nothing the frame wrote is there after the reload. A browser setting cannot model it here: the e2e host page
// and the platform both run on localhost, one site for the browser, so third-party blocking would not apply.

const host = hostPageAt(E2E.hostPageOrigin);
const APP_ORIGIN = new URL(E2E.appUrl).origin;

async function refuseFrameStorage(page: Page) {
  await page.addInitScript((appOrigin) => {
    if (location.origin !== appOrigin || window === window.top) return;
    Object.defineProperty(window, "localStorage", {
      get() {
        throw new DOMException("Access is denied for this document.", "SecurityError");
      },
    });
  }, APP_ORIGIN);
}

async function openPanel(page: Page) {
  await page.getByRole("button", { name: "Open chat" }).click();
  return panelOf(page);
}

test.beforeEach(async () => {
  await model.reset();
  await model.setRules([
    { match: "parking", steps: [{ type: "text", text: "There is parking behind the café." }] },
  ]);
});

test("with the panel's storage refused, the conversation survives a reload and a second page of the site", async ({
  page,
}) => {
  await refuseFrameStorage(page);
  await page.goto(host.url({ key: CAFE }));
  let panel = await openPanel(page);
  // The refusal is in place: the panel's own storage throws.
  const frame = await panelFrame(page);
  expect(
    await frame.evaluate(() => {
      try {
        return typeof window.localStorage;
      } catch (e) {
        return (e as DOMException).name;
      }
    }),
  ).toBe("SecurityError");

  const input = panel.getByRole("textbox", { name: "Your message" });
  await input.fill("is there parking?");
  await input.press("Enter");
  await expect(panel.locator(".msg.bot .bubble").last()).toHaveText("There is parking behind the café.");

  // The host page holds the token and the conversation id, and nothing else.
  const saved = await page.evaluate((k) => localStorage.getItem(`michi.${k}`), CAFE);
  const copy = JSON.parse(saved ?? "{}") as Record<string, unknown>;
  expect(Object.keys(copy).sort()).toEqual(["conversationId", "token"]);

  await page.reload();
  panel = await openPanel(page);
  await expect(panel.locator(".msg.me").last()).toContainText("is there parking?");
  await expect(panel.locator(".msg.bot .bubble").last()).toHaveText("There is parking behind the café.");

  await page.goto(host.url({ key: CAFE }, "/second"));
  panel = await openPanel(page);
  await expect(panel.locator(".msg.me").last()).toContainText("is there parking?");
  await expect(panel.locator(".msg.bot .bubble").last()).toHaveText("There is parking behind the café.");
  // Still the same conversation: a new question continues it.
  await panel.getByRole("textbox", { name: "Your message" }).fill("and parking at night?");
  await panel.getByRole("textbox", { name: "Your message" }).press("Enter");
  await expect(panel.locator(".msg.me")).toHaveCount(2);
  // The host keeps the same conversation (its token is renewed on each load, as no expiry is kept there).
  const after = JSON.parse((await page.evaluate((k) => localStorage.getItem(`michi.${k}`), CAFE)) ?? "{}");
  expect(after.conversationId).toBe(copy.conversationId);
});
