import { type APIRequestContext, expect, request, test } from "@playwright/test";
import { ALL_PACKS } from "@/lib/tools";
import { E2E } from "../support/e2e-env";
import { fakeModelControl } from "../support/fake-model";
import { keepScreenshot, signedInContext, signIn, visitorTurn } from "./admin-support";

// The tenant admin as a shop owner meets it (issue 15): the Tools list and a pack's page, the Test panel's
// generated form, limits that warn and refuse instead of cutting, transcripts as the visitor saw them, search
// that folds accents and finds Japanese inside a sentence, and the Usage page's periods and chart. Screenshots
// of the Tools list, the Test panel and a transcript at 1280 and 390 px in both themes are kept as artifacts.

test.describe.configure({ mode: "serial" });

const model = fakeModelControl(E2E.modelUrl);
const LAB = `/admin/${E2E.lab.slug}`;
const QUESTION = "polish check: do you deliver to München? ¿abrís hoy? 明日の営業時間は何時までですか";
const ANSWER_MD =
  "**Yes**, we deliver there:\n\n- Monday to Friday\n- until `18:00`\n\nSee [our hours](https://example.com/hours).";

let widget: APIRequestContext;
let conversation: string;

test.beforeAll(async () => {
  widget = await request.newContext({ baseURL: E2E.appUrl });
  await model.reset();
  await model.setRules([
    { match: "polish check", steps: [{ type: "text", text: ANSWER_MD }] },
    // A stream cut before the provider reports usage: its tokens are estimated (marked ≈ on Usage).
    { match: "polish estimate", steps: [{ type: "cut", text: "Partly answered before the line went" }] },
  ]);
  conversation = await visitorTurn(widget, E2E.lab.widgetKey, QUESTION);
  await visitorTurn(widget, E2E.lab.widgetKey, "polish estimate: what is on the menu?");
});

test.afterAll(async () => {
  await widget?.dispose();
  await model.reset();
});

test("the Tools page is a list to scan: name, one line, status and a switch per pack; old links land", async ({
  page,
}) => {
  await signIn(page, E2E.operator);
  await page.goto(`${LAB}/tools`);
  const rows = page.locator("li[data-pack]");
  // One row per pack the build ships, whatever packs a fork adds.
  await expect(rows).toHaveCount(ALL_PACKS.length);
  for (const row of await rows.all()) {
    await expect(row.getByRole("heading", { level: 3 })).toBeVisible();
    await expect(row.getByRole("switch")).toBeVisible();
    await expect(row.getByTestId("pack-status")).toBeVisible();
  }
  // No form on the list: it is one short screen, not every pack's settings expanded.
  await expect(page.locator("main form")).toHaveCount(0);
  const pageHeight = await page.evaluate(() => document.documentElement.scrollHeight);
  expect(pageHeight).toBeLessThan(2000);
  // Admin-facing names, not the visitor's chip text.
  await expect(
    rows.filter({ has: page.getByRole("heading", { name: "Opening hours", exact: true }) }),
  ).toHaveCount(1);
  await expect(page.locator("li[data-pack='check_stock']")).toContainText("Needs settings");
  // Business details with nothing typed in could only say "not provided": it needs details, not settings.
  await expect(page.locator("li[data-pack='get_business_info']")).toContainText(
    "Needs details: at least one of address, phone, e-mail, opening hours or policies",
  );
  await expect(page.locator("li[data-pack='request_human']")).toContainText("Configured");

  // The switch: a pack that needs its settings or its details stays off and says why; a ready one turns on
  // and off.
  const stock = page.getByRole("switch", { name: "Stock check: bot may use this tool" });
  await stock.click();
  await expect(page.locator("li[data-pack='check_stock']")).toContainText("needs its settings");
  await expect(stock).toHaveAttribute("aria-checked", "false");
  const empty = page.getByRole("switch", { name: "Business details: bot may use this tool" });
  await empty.click();
  await expect(page.locator("li[data-pack='get_business_info']")).toContainText(
    "Business details has nothing to answer from yet: fill in at least one of address, phone, e-mail, opening hours or policies before switching it on.",
  );
  await expect(empty).toHaveAttribute("aria-checked", "false");
  const form = page.getByRole("switch", { name: "Offering a contact form: bot may use this tool" });
  await expect(form).toHaveAttribute("aria-checked", "false");
  await form.click();
  await expect(page.locator("li[data-pack='request_human']")).toContainText(
    "Offering a contact form is now on.",
  );
  await page.reload();
  await expect(form).toHaveAttribute("aria-checked", "true");
  await form.click();
  await expect(page.locator("li[data-pack='request_human']")).toContainText(
    "Offering a contact form is now off.",
  );

  // One pack's form at a time, on its own page; the name links there.
  await page.getByRole("link", { name: "Menu", exact: true }).click();
  await expect(page).toHaveURL(new RegExp(`${LAB}/tools/get_menu$`));
  await expect(page.getByRole("heading", { level: 1, name: "Menu" })).toBeVisible();
  await expect(page.getByText("Looking at the menu")).toBeVisible();
  // Deep links from before the list: ?pack= opens the pack, #pack-<id> is the row.
  await page.goto(`${LAB}/tools?pack=get_weather`);
  await expect(page).toHaveURL(new RegExp(`${LAB}/tools/get_weather$`));
  await page.goto(`${LAB}/tools#pack-get_weather`);
  await expect(page.locator("#pack-get_weather")).toBeInViewport();
});

test("the Test panel is a form made from the pack's parameters, with plain words for mistakes", async ({
  page,
}) => {
  await signIn(page, E2E.operator);
  await page.goto(`${LAB}/tools/check_stock`);
  const panel = page.getByTestId("test-panel");
  await expect(panel.locator("textarea")).toHaveCount(0);
  // check_stock's argument is `product`, prefilled from the pack's example, with its description as help.
  const product = panel.getByLabel("Product (required)");
  await expect(product).toHaveValue("ceramic pour-over");
  await expect(panel.getByText("The product name or a few words of it.")).toBeVisible();
  await product.fill("");
  await panel.getByRole("button", { name: "Test", exact: true }).click();
  await expect(panel.getByText('Fill in "Product": the tool needs it.')).toBeVisible();
  await expect(product).toHaveAttribute("aria-invalid", "true");
  await expect(panel).not.toContainText("must have required property");
  await expect(panel.getByTestId("test-result")).toHaveCount(0);

  // An enum becomes a choice of its values.
  await page.goto(`${LAB}/tools/get_menu`);
  const diet = page.getByTestId("test-panel").getByLabel("Dietary (optional)");
  await expect(diet).toHaveValue("vegan");
  await expect(diet.locator("option")).toContainText(["(leave out)", "vegan"]);
});

test("limits warn while typing and the server refuses instead of cutting", async ({ page }) => {
  await signIn(page, E2E.operator);
  await page.goto(`${LAB}/tools/fetch_json`);
  const card = page.locator('section[data-pack="fetch_json"]');
  const when = card.getByLabel("When should the bot use this?");
  await expect(when).not.toHaveAttribute("maxlength", /.*/);
  await when.fill("w".repeat(250));
  await expect(card.getByText("250 / 300 characters")).toBeVisible();
  await when.fill("w".repeat(310));
  await expect(card.getByText("310 / 300 characters: 10 too many")).toBeVisible();
  await card.getByLabel("Site base URL").fill(E2E.fixtureOrigin);
  await card.getByLabel("Path of the JSON file").fill("/api/hours/");
  await card.getByLabel("Fields to keep").fill("open\n$.nextChange");
  await card.getByRole("button", { name: "Save", exact: true }).click();
  await expect(card.getByText("This is 310 characters long; use at most 300")).toBeVisible();
  await expect(
    card.getByText('Line 2 ("$.nextChange"): leave out the leading "$": write nextChange'),
  ).toBeVisible();
  // Nothing was cut: every character typed is still there.
  await expect(when).toHaveValue("w".repeat(310));

  await page.goto(`${LAB}/bot`);
  const name = page.getByLabel("Name visitors see");
  const stored = await name.inputValue();
  await name.fill("N".repeat(65));
  await expect(page.getByText("65 / 60 characters: 5 too many")).toBeVisible();
  await page.getByRole("button", { name: "Save bot settings" }).click();
  await expect(page.getByText("The name can be at most 60 characters")).toBeVisible();
  await page.reload();
  await expect(page.getByLabel("Name visitors see")).toHaveValue(stored);
});

test("a transcript shows the answer as the visitor saw it, with its source on request", async ({ page }) => {
  await signIn(page, E2E.operator);
  await page.goto(`${LAB}/conversations/${conversation}`);
  const bot = page.getByRole("article", { name: "Bot" });
  await expect(bot.locator(".transcript-rendered strong")).toHaveText("Yes");
  await expect(bot.locator(".transcript-rendered li")).toHaveText(["Monday to Friday", "until 18:00"]);
  await expect(bot.locator(".transcript-rendered a")).toHaveAttribute("href", "https://example.com/hours");
  await expect(bot.getByText("**Yes**")).toBeHidden();
  const toggle = page.getByRole("button", { name: "Show Markdown source" });
  await toggle.click();
  await expect(toggle).toHaveAttribute("aria-pressed", "true");
  await expect(bot.locator(".transcript-source")).toBeVisible();
  await expect(bot.locator(".transcript-source")).toContainText("**Yes**, we deliver there:");
  await expect(bot.locator(".transcript-rendered")).toBeHidden();
  // The delete trigger is a secondary, outlined danger action, not the page's main button.
  await expect(page.locator("#delete summary")).toHaveClass(/btn-danger-secondary/);
});

test("search folds accents and finds Japanese inside a sentence", async ({ page }) => {
  await signIn(page, E2E.operator);
  for (const q of ["munchen", "abris", "営業時間", "何時まで"]) {
    await page.goto(`${LAB}/conversations?q=${encodeURIComponent(q)}`);
    await expect(page.locator(`a[href$="/conversations/${conversation}"]`), q).toHaveCount(1);
  }
  await page.goto(`${LAB}/conversations?q=${encodeURIComponent("定休日")}`);
  await expect(page.getByText("No conversation matches these filters.")).toBeVisible();
});

test("the Usage page explains its periods, scales to the data and marks estimates", async ({ page }) => {
  await signIn(page, E2E.operator);
  await page.goto(`${LAB}/usage?days=7`);
  await expect(page.getByTestId("period-explained")).toContainText("Today and the 6 days before it");
  await expect(page.getByTestId("month-explained")).toContainText("counts against your monthly budget");
  // The default budget's daily share is far above a test's use: named, not stretching the axis.
  await expect(page.getByTestId("reference-off-scale")).toContainText("far above this use");
  // The cut answer's tokens are estimates: ≈ on the period total and on today's row.
  await expect(page.locator("#totals-title + p + dl")).toContainText("≈");
  const tokens = page.getByRole("table", { name: "Tokens per day" });
  const today = new Date().toISOString().slice(0, 10);
  await expect(tokens.getByRole("row").filter({ hasText: today })).toContainText("≈");
  await expect(page.getByRole("link", { name: "Data & retention" }).first()).toBeVisible();
});

test("screenshots: the Tools list, the Test panel and a transcript at 1280 and 390 px, light and dark", async ({
  browser,
}, testInfo) => {
  // The four browsers shoot at the same time, each in a context of its own.
  const shots = (["light", "dark"] as const).flatMap((colorScheme) =>
    [1280, 390].map(async (width) => {
      const page = await signedInContext(browser, E2E.operator, { colorScheme, width });
      const tag = `${width}px-${colorScheme}`;
      await page.goto(`${LAB}/tools`);
      await expect(page.locator("li[data-pack]").first()).toBeVisible();
      await keepScreenshot(page, testInfo, `tools-list-${tag}`);
      await page.goto(`${LAB}/tools/check_stock`);
      await expect(page.getByTestId("test-panel")).toBeVisible();
      await keepScreenshot(page, testInfo, `test-panel-${tag}`);
      await page.goto(`${LAB}/conversations/${conversation}`);
      await expect(page.getByRole("article", { name: "Bot" })).toBeVisible();
      await keepScreenshot(page, testInfo, `transcript-${tag}`);
      // Nothing overflows the narrow screen sideways.
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow, tag).toBeLessThanOrEqual(0);
      await page.context().close();
    }),
  );
  await Promise.all(shots);
});
