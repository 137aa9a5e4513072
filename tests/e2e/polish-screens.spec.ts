import AxeBuilder from "@axe-core/playwright";
import { type APIRequestContext, expect, type Page, request, test } from "@playwright/test";
import { E2E } from "../support/e2e-env";
import { FAILING_PATHS } from "../support/e2e-fixture-routes";
import { fakeModelControl } from "../support/fake-model";
import { hostPageAt } from "../support/host-page";
import { keepScreenshot, signedInContext, signIn, visitorTurn, waitForHydration } from "./admin-support";

// Issue 30, items 9 and 11 and the screenshots: the Bot page's live preview follows the form as the owner
// types; the business's time zone shows on its dates; and the Bot page with its preview, Tools with a failing
// pack, the Overview and the widget in Spanish are kept as artifacts at 1280 and 390 px, light and dark.
// Everything happens in a business this spec creates, so no other spec's tenant changes.

test.describe.configure({ mode: "serial" });

const model = fakeModelControl(E2E.modelUrl);
const host = hostPageAt(E2E.hostPageOrigin);
const NAME = `Shots ${Date.now().toString(36)}`;
const SLUG = NAME.toLowerCase().replace(/\s+/g, "-");
const ADMIN = `/admin/${SLUG}`;
let widget: APIRequestContext;
let widgetKey = "";

const preview = (page: Page) => page.frameLocator('iframe[title="Preview of your chat widget"]');

test.beforeAll(async ({ browser }) => {
  widget = await request.newContext({ baseURL: E2E.appUrl });
  const page = await (await browser.newContext()).newPage();
  await signIn(page, E2E.operator);
  // The operator's own (existing) account becomes the owner at once.
  await page.goto("/admin/operator");
  const form = page.locator("#create");
  // The address is derived by React as the name is typed: typing before it hydrates leaves it empty.
  await waitForHydration(form.getByLabel("Business name"));
  await form.getByLabel("Business name").fill(NAME);
  await expect(form.getByLabel("Address (slug)")).toHaveValue(SLUG);
  await form.getByLabel("Owner's e-mail").fill(E2E.operator.email);
  await form.getByRole("button", { name: "Create business" }).click();
  await expect(form.getByRole("status").first()).toContainText("The existing account was made its owner");
  await page.goto(`${ADMIN}/embed`);
  widgetKey = /data-michi-key="([^"]+)"/.exec((await page.locator("main").textContent()) ?? "")?.[1] ?? "";
  expect(widgetKey).toMatch(/^wk_/);

  // A pack switched on whose site answers 404: after one visitor's call, Tools and the Overview say it fails.
  await page.goto(`${ADMIN}/tools/fetch_json`);
  const card = page.locator('section[data-pack="fetch_json"]');
  await card.getByLabel("Enabled: the bot may use this tool").check();
  await card.getByLabel("Site base URL").fill(E2E.fixtureOrigin);
  await card.getByLabel("Path of the JSON file").fill(FAILING_PATHS.missing);
  await card.getByLabel("Fields to keep").fill("open");
  await card.getByLabel("When should the bot use this?").fill("Use this to say whether we are open now.");
  await card.getByRole("button", { name: "Save", exact: true }).click();
  await expect(card.getByText("Checking our website: saved.")).toBeVisible();
  await model.setRules([
    {
      match: "shots: are you open",
      steps: [
        { type: "tool_calls", calls: [{ name: "fetch_json", arguments: "{}" }] },
        { type: "text", text: "Sorry, I could not check." },
      ],
    },
  ]);
  await visitorTurn(widget, widgetKey, "shots: are you open?");
  await page.context().close();
});

test.afterAll(async () => {
  await widget?.dispose();
  await model.reset();
});

test("the Bot page's preview is the widget itself, following the form as the owner types", async ({
  page,
}) => {
  await signIn(page, E2E.operator);
  await page.goto(`${ADMIN}/bot`);
  const panel = preview(page);
  await expect(panel.locator(".panel")).toBeVisible();
  await page.getByLabel("Name visitors see").fill("Rosa's helper");
  await expect(panel.getByRole("heading", { level: 1 })).toHaveText("Rosa's helper");
  await page.getByLabel("Greeting", { exact: true }).fill("Hi! Ask me about flowers.");
  await expect(panel.locator(".msg.bot").first()).toContainText("Hi! Ask me about flowers.");
  await page.getByLabel("Starter prompt 1").fill("Do you deliver?");
  await expect(panel.getByRole("button", { name: "Do you deliver?" })).toBeVisible();
  // The colour reaches the panel's own theme variable.
  await page.getByLabel("Theme colour", { exact: true }).fill("#b42318");
  await expect
    .poll(() => panel.locator("html").evaluate((el) => getComputedStyle(el).getPropertyValue("--c").trim()))
    .toBe("#b42318");
  // Spanish: the panel's own words, and the Spanish greeting once written, with no English starters beside it.
  await page.getByText("Greeting, starters and consent in each language").click();
  await page.getByLabel("Greeting in Español").fill("¡Hola! Pregúntame por las flores.");
  await page.getByRole("combobox", { name: "Language" }).last().selectOption("es");
  await expect(panel.locator(".msg.bot").first()).toContainText("¡Hola! Pregúntame por las flores.");
  await expect(panel.getByRole("textbox", { name: "Tu mensaje" })).toBeVisible();
  await expect(panel.getByRole("button", { name: "Do you deliver?" })).toHaveCount(0);
  // Nothing was saved by typing, and the preview cannot send.
  await page.reload();
  await expect(page.getByLabel("Name visitors see")).not.toHaveValue("Rosa's helper");
});

test("dates read in the business's time zone once it is set", async ({ page }) => {
  await signIn(page, E2E.operator);
  await page.goto(`${ADMIN}/settings`);
  await page.getByRole("combobox", { name: "Time zone" }).selectOption("Asia/Tokyo");
  await page.getByRole("button", { name: "Save time zone" }).click();
  await expect(
    page.getByRole("status").filter({ hasText: "Dates are now shown in Asia/Tokyo." }),
  ).toBeVisible();
  await page.goto(`${ADMIN}/audit`);
  await expect(page.locator("main time").first()).toContainText("GMT+9");
  await page.goto(`${ADMIN}/usage`);
  await expect(page.getByTestId("period-explained")).toContainText("Asia/Tokyo");
});

test("screenshots: Bot page with its preview, Tools with a failing pack, Overview, the widget in Spanish", async ({
  browser,
}, testInfo) => {
  test.setTimeout(180_000);
  for (const colorScheme of ["light", "dark"] as const)
    for (const width of [1280, 390]) {
      const page = await signedInContext(browser, E2E.operator, { colorScheme, width });
      const tag = `${width}px-${colorScheme}`;
      await page.goto(`${ADMIN}/bot`);
      await expect(preview(page).locator(".panel")).toBeVisible();
      await keepScreenshot(page, testInfo, `bot-preview-${tag}`);
      const axe = await new AxeBuilder({ page }).analyze();
      const serious = axe.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
      expect(serious, `${tag}: ${serious.map((v) => v.id).join(", ")}`).toEqual([]);

      await page.goto(`${ADMIN}/tools`);
      await expect(page.locator("li[data-pack='fetch_json']")).toContainText("Failing");
      await keepScreenshot(page, testInfo, `tools-failing-${tag}`);
      await page.goto(ADMIN);
      await expect(page.locator("main")).toContainText("failed on its last");
      await keepScreenshot(page, testInfo, `overview-${tag}`);

      await page.goto(host.url({ key: E2E.cafe.widgetKey, lang: "es" }));
      await page.getByRole("button", { name: "Abrir el chat" }).click();
      const panel = page.frameLocator(`iframe[src*="/w/${E2E.cafe.widgetKey}"]`);
      await expect(panel.getByRole("textbox", { name: "Tu mensaje" })).toBeVisible();
      await keepScreenshot(page, testInfo, `widget-es-${tag}`);
      await page.context().close();
    }
});
