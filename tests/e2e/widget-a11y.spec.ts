import AxeBuilder from "@axe-core/playwright";
import { expect, test } from "@playwright/test";
import { E2E } from "../support/e2e-env";
import { hostPageAt } from "../support/host-page";
import { CAFE, model, OPEN_ANSWER, OPEN_NOW, panelFrame, panelOf } from "./widget-helpers";

// The world's host page, a customer's site that the café tenant allows.
const host = hostPageAt(E2E.hostPageOrigin);
test.beforeEach(async () => {
  await model.reset();
  await model.setRules([OPEN_NOW]);
});

test("axe finds no serious or critical violation in the launcher or the open panel with a conversation", async ({
  page,
}) => {
  await page.goto(host.url({ key: CAFE }));
  const closed = await new AxeBuilder({ page }).include("michi-chat").analyze();
  expect(closed.violations.filter((v) => v.impact === "serious" || v.impact === "critical")).toEqual([]);

  await page.getByRole("button", { name: "Open chat" }).click();
  const panel = panelOf(page);
  await panel
    .getByRole("textbox", { name: "Your message" })
    .fill("are you open now? Please answer with `code`");
  await panel.getByRole("textbox", { name: "Your message" }).press("Enter");
  await expect(panel.locator(".msg.bot .bubble").last()).toHaveText(OPEN_ANSWER);
  const open = await new AxeBuilder({ page }).analyze();
  const bad = open.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  expect(bad.map((v) => ({ id: v.id, nodes: v.nodes.map((n) => n.target) }))).toEqual([]);
});

for (const scheme of ["light", "dark"] as const)
  for (const [device, viewport] of [
    ["desktop", { width: 1280, height: 800 }],
    ["phone", { width: 375, height: 700 }],
  ] as const)
    test(`axe: no serious or critical violation in the panel, ${scheme}, ${device}, with every kind of message`, async ({
      page,
    }) => {
      await page.emulateMedia({ colorScheme: scheme });
      await page.setViewportSize(viewport);
      await model.setRules([
        {
          match: "everything",
          steps: [
            { type: "tool_calls", calls: [{ name: "get_opening_status", arguments: '{"broken": ' }] },
            {
              type: "text",
              text: "**Hours** and [our site](https://cafe.example/hours):\n\n| Day | Opens |\n| --- | --- |\n| Mon | `8:00` |\n\n- one\n- two",
            },
          ],
        },
        { match: "fail", steps: [{ type: "http_error", status: 400 }] },
      ]);
      await page.goto(host.url({ key: CAFE }));
      await page.getByRole("button", { name: "Open chat" }).click();
      const panel = panelOf(page);
      const input = panel.getByRole("textbox", { name: "Your message" });
      await input.fill("show me everything");
      await input.press("Enter");
      await expect(panel.locator(".msg.bot table")).toBeVisible();
      await input.fill("now fail");
      await input.press("Enter");
      await expect(panel.getByRole("button", { name: "Retry" })).toBeVisible();
      await expect(panel.locator(".chip.error")).toBeVisible();
      const result = await new AxeBuilder({ page }).analyze();
      const bad = result.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
      expect(bad.map((v) => ({ id: v.id, nodes: v.nodes.map((n) => n.target) }))).toEqual([]);
    });

test("keyboard only: reach the launcher, chat, Tab stays in the panel, Escape returns focus to the launcher", async ({
  page,
}) => {
  await page.goto(host.url({ key: CAFE }));
  await expect(page.getByRole("button", { name: "Open chat" })).toBeVisible();
  const onLauncher = () =>
    page.evaluate(
      () => document.activeElement?.shadowRoot?.activeElement?.getAttribute("aria-label") ?? null,
    );
  for (let i = 0; i < 6 && (await onLauncher()) !== "Open chat"; i++) await page.keyboard.press("Tab");
  expect(await onLauncher()).toBe("Open chat");

  await page.keyboard.press("Enter");
  const panel = panelOf(page);
  const input = panel.getByRole("textbox", { name: "Your message" });
  await expect(input).toBeFocused();
  await page.keyboard.type("are you open now?");
  await page.keyboard.press("Shift+Enter");
  await page.keyboard.type("thanks");
  await expect(input).toHaveValue("are you open now?\nthanks");
  await page.keyboard.press("Enter");
  await expect(panel.locator(".msg.bot .bubble").last()).toHaveText(OPEN_ANSWER);
  await expect(input).toHaveValue("");

  // Focus cycles inside the panel: from the message box (the last enabled control) to the first and back.
  await input.focus();
  await page.keyboard.press("Tab");
  // The header's first control is the "More options" menu (talk to a person), then New conversation.
  await expect(panel.getByRole("button", { name: "More options" })).toBeFocused();
  await page.keyboard.press("Tab");
  await expect(panel.getByRole("button", { name: "New conversation" })).toBeFocused();
  await page.keyboard.press("Shift+Tab");
  await page.keyboard.press("Shift+Tab");
  await expect(input).toBeFocused();
  for (let i = 0; i < 8; i++) {
    await page.keyboard.press("Tab");
    expect(await onLauncher()).toBeNull();
    expect(await page.evaluate(() => document.activeElement?.tagName)).toBe("MICHI-CHAT");
  }

  // Visible focus: the focused control draws an outline.
  await input.focus();
  const frame = await panelFrame(page);
  expect(await frame.evaluate(() => getComputedStyle(document.activeElement as Element).outlineStyle)).toBe(
    "solid",
  );

  await page.keyboard.press("Escape");
  await expect(page.locator(`iframe[src*="/w/${CAFE}"]`)).toBeHidden();
  expect(await onLauncher()).toBe("Open chat");
  await page.keyboard.press("Enter");
  await expect(panel.locator(".msg.bot .bubble").last()).toHaveText(OPEN_ANSWER);
  await expect(input).toBeFocused();
});

test("chips and answers are announced through a polite live region", async ({ page }) => {
  await page.goto(host.url({ key: CAFE }));
  await page.getByRole("button", { name: "Open chat" }).click();
  const panel = panelOf(page);
  await panel.getByRole("textbox", { name: "Your message" }).fill("are you open now?");
  await panel.getByRole("textbox", { name: "Your message" }).press("Enter");
  const live = panel.locator("[aria-live=polite]");
  await expect(live).toContainText("Checking if we're open");
  await expect(live).toContainText(`E2E Café: ${OPEN_ANSWER}`);
});

test("prefers-reduced-motion turns the panel's animations off", async ({ page }) => {
  await page.emulateMedia({ reducedMotion: "reduce" });
  await page.goto(host.url({ key: CAFE }));
  await page.getByRole("button", { name: "Open chat" }).click();
  await panelOf(page).getByRole("button", { name: "Are you open now?" }).click();
  await expect(panelOf(page).locator(".msg.bot .bubble").last()).toHaveText(OPEN_ANSWER);
  const frame = await panelFrame(page);
  expect(
    await frame.evaluate(() => getComputedStyle(document.querySelector(".msg") as Element).animationName),
  ).toBe("none");
});
