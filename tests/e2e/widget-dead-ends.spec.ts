import { expect, test } from "@playwright/test";
import { HANDOFF_STRINGS } from "@/shared/handoff-words";
import { STRINGS } from "@/widget/i18n";
import { E2E } from "../support/e2e-env";
import { hostPageAt } from "../support/host-page";
import { CAFE, model, panelOf } from "./widget-helpers";

// No silent dead ends for a visitor, on the production build: a hung model says it is still working, then
// fails within the first-byte limit with Retry and "Talk to a person"; the message box shows its limit before
// it cuts; "New conversation" asks before it clears a conversation.

const host = hostPageAt(E2E.hostPageOrigin);
const t = STRINGS.en;

test("a hung model: still working, then an honest failure that offers a person next to Retry", async ({
  page,
}) => {
  await model.setRules([{ match: "hung", steps: [{ type: "silent" }] }]);
  await page.goto(host.url({ key: CAFE }));
  await page.getByRole("button", { name: t.open }).click();
  const panel = panelOf(page, CAFE);
  const input = panel.getByRole("textbox", { name: t.messageLabel });
  await input.fill("is the hung model there?");
  await input.press("Enter");
  const reply = panel.locator(".msg.bot").last();
  await expect(reply.getByRole("status").filter({ hasText: t.stillWorking })).toBeVisible();
  const foot = reply.locator(".foot.err");
  await expect(foot).toContainText(t.timeout, { timeout: 30_000 });
  await expect(foot.getByRole("button", { name: t.retry })).toBeVisible();
  await foot.getByRole("button", { name: HANDOFF_STRINGS.en.talk }).click();
  await expect(panel.locator("form.hf")).toBeVisible();
});

test("the message box shows its limit before it cuts, and New conversation asks first", async ({ page }) => {
  await model.setRules([]);
  await page.goto(host.url({ key: CAFE }));
  await page.getByRole("button", { name: t.open }).click();
  const panel = panelOf(page, CAFE);
  const input = panel.getByRole("textbox", { name: t.messageLabel });
  await input.fill("x".repeat(1700));
  await expect(panel.locator("#michi-count")).toHaveCount(0);
  await input.fill("x".repeat(1900));
  await expect(panel.locator("#michi-count")).toHaveText("1900/2000");
  await input.fill("y".repeat(2100));
  await expect(panel.locator("#michi-count")).toHaveText("2000/2000");

  await input.fill("a question worth keeping");
  await input.press("Enter");
  await expect(panel.locator(".msg.bot .bubble").last()).toHaveText("You said: a question worth keeping");
  await panel.getByRole("button", { name: t.newConversation }).click();
  const confirm = panel.getByRole("alertdialog");
  await expect(confirm).toContainText(t.confirmNew);
  await confirm.getByRole("button", { name: t.cancel }).click();
  await expect(panel.locator(".msg.me .bubble")).toHaveText(["a question worth keeping"]);
  await panel.getByRole("button", { name: t.newConversation }).click();
  await panel.getByRole("alertdialog").getByRole("button", { name: t.yes }).click();
  await expect(panel.locator(".msg.me")).toHaveCount(0);
});
