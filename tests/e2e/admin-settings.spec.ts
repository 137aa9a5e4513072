import { expect, test } from "@playwright/test";
import { E2E } from "../support/e2e-env";
import { signIn } from "./admin-support";

// The Bot page and the embed snippet as a tenant owner uses them, on the production build.

test.beforeEach(async ({ page }) => {
  await signIn(page, E2E.operator);
});

test("Bot settings: a bad colour is explained, the rest kept; a good one saves", async ({ page }) => {
  // A name of this repetition (--repeat-each): saving what an earlier one stored would be "No changes to save".
  const name = `Café Bot ${test.info().repeatEachIndex + 1}`;
  await page.goto(`/admin/${E2E.lab.slug}/bot`);
  await page.getByLabel("Name visitors see").fill(name);
  const colour = page.getByRole("textbox", { name: "Theme colour", exact: true });
  await colour.fill("teal");
  await page.getByLabel("Model").selectOption(E2E.models[1]);
  await page.getByRole("button", { name: "Save bot settings" }).click();
  await expect(page.getByText("Enter a colour as # and six hex digits, like #0f766e")).toBeVisible();
  await expect(colour).toHaveAttribute("aria-invalid", "true");
  await expect(page.getByLabel("Name visitors see")).toHaveValue(name);

  await colour.fill("#7c3aed");
  await page.getByRole("button", { name: "Save bot settings" }).click();
  await expect(page.getByText("Bot settings saved.")).toBeVisible();
  await page.reload();
  await expect(page.getByLabel("Name visitors see")).toHaveValue(name);
  await expect(page.getByLabel("Model")).toHaveValue(E2E.models[1]);
});

test("the embed snippet copies to the clipboard and says so", async ({ page, context }) => {
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  await page.goto(`/admin/${E2E.cafe.slug}/embed`);
  const snippet = `<script src="${E2E.appUrl}/widget.js" data-michi-key="${E2E.cafe.widgetKey}" async></script>`;
  await expect(page.locator("#embed-snippet")).toHaveText(snippet);
  await page.getByRole("button", { name: "Copy snippet" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Copied" })).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(snippet);
  // The live preview loads that same script here, so the tenant's launcher is drawn on the page.
  await expect(page.locator("michi-chat")).toHaveCount(1);
});
