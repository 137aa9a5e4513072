import { type Browser, expect, type Page, test } from "@playwright/test";
import { E2E } from "../support/e2e-env";
import { signIn, waitForHydration } from "./admin-support";

// A pack's page (Tools → one pack) as a tenant admin uses it, on the production build: the generated form,
// the url policy's messages, typed values kept after a failed save, the audit trail, the Test panel,
// write-only secrets and a viewer's read-only view. The operator owns the demo tenant; the viewer is a viewer
// there. The list itself is in tools-list.spec.ts.

test.describe.configure({ mode: "serial" });

const TOOLS = "/admin/demo/tools";
const FETCH_JSON = `${TOOLS}/fetch_json`;
const CHECK_STOCK = `${TOOLS}/check_stock`;

async function signedIn(browser: Browser, who: { email: string; password: string }): Promise<Page> {
  const context = await browser.newContext();
  const page = await context.newPage();
  await signIn(page, who);
  return page;
}

const fetchJsonCard = (page: Page) => page.locator('section[data-pack="fetch_json"]');

test("declaring the site's domain on Site & embed", async ({ browser }) => {
  const page = await signedIn(browser, E2E.operator);
  await page.goto("/admin/demo/embed");
  const domains = page.getByLabel("Your site's domains");
  // A domain of this repetition (--repeat-each): saving what an earlier one stored changes nothing.
  const domain = `michi-cafe-${test.info().repeatEachIndex + 1}.example`;
  await domains.fill(`${domain}\nnot a domain`);
  await page.getByRole("button", { name: "Save domains" }).click();
  await expect(page.getByText('Line 2: "not a domain" is not a valid domain name')).toBeVisible();
  await expect(domains).toHaveValue(`${domain}\nnot a domain`);
  await domains.fill(domain);
  await page.getByRole("button", { name: "Save domains" }).click();
  await expect(page.getByText("Site domains saved.")).toBeVisible();
  await expect(page.locator("#embed-snippet")).toContainText(`${E2E.appUrl}/widget.js`);
  await page.context().close();
});

test("a bad address is refused with the policy's message and everything typed stays", async ({ browser }) => {
  const page = await signedIn(browser, E2E.operator);
  await page.goto(FETCH_JSON);
  const card = fetchJsonCard(page);
  // Whatever is stored now (empty, or what a later test saved on an earlier --repeat-each round) must stay.
  const stored = await card.getByLabel("Site base URL").inputValue();
  await card.getByLabel("Enabled: the bot may use this tool").check();
  await card.getByLabel("Site base URL").fill("http://localhost:8080");
  await card.getByLabel("Path of the JSON file").fill("/api/hours/");
  await card.getByLabel("Fields to keep").fill("open\nnextChange");
  await card
    .getByLabel("When should the bot use this?")
    .fill("Use this to say whether the café is open now.");
  await card.getByRole("button", { name: "Save", exact: true }).click();

  const baseUrl = card.getByLabel("Site base URL");
  await expect(card.getByText("URLs must start with https://")).toBeVisible();
  await expect(baseUrl).toHaveAttribute("aria-invalid", "true");
  await expect(baseUrl).toHaveValue("http://localhost:8080");
  await expect(card.getByLabel("Path of the JSON file")).toHaveValue("/api/hours/");
  await expect(card.getByLabel("Fields to keep")).toHaveValue("open\nnextChange");
  await expect(card.getByLabel("Enabled: the bot may use this tool")).toBeChecked();

  // On https but outside the declared domains: a different, equally plain message.
  await baseUrl.fill("https://elsewhere.example");
  await card.getByRole("button", { name: "Save", exact: true }).click();
  await expect(card.getByText("This address is not on your site's domains (Site & embed)")).toBeVisible();

  // The reloaded page shows nothing was stored.
  await page.reload();
  await expect(fetchJsonCard(page).getByLabel("Site base URL")).toHaveValue(stored);
  await page.context().close();
});

test("a valid address is saved and the change appears in the audit log", async ({ browser }) => {
  const page = await signedIn(browser, E2E.operator);
  await page.goto(FETCH_JSON);
  const card = fetchJsonCard(page);
  await card.getByLabel("Enabled: the bot may use this tool").check();
  // The https fixture is the operator-allowed host of the e2e world (MICHI_FETCH_ALLOW_HOSTS).
  await card.getByLabel("Site base URL").fill(E2E.fixtureOrigin);
  await card.getByLabel("Path of the JSON file").fill("/api/hours/");
  await card.getByLabel("Fields to keep").fill("open\nnextChange");
  // Worded per --repeat-each round: saving exactly what an earlier round stored would change nothing.
  await card
    .getByLabel("When should the bot use this?")
    .fill(`Use this to say whether the café is open now (round ${test.info().repeatEachIndex + 1}).`);
  await card.getByRole("button", { name: "Save", exact: true }).click();
  await expect(card.getByText("Checking our website: saved.")).toBeVisible();

  await page.reload();
  await expect(fetchJsonCard(page).getByLabel("Site base URL")).toHaveValue(E2E.fixtureOrigin);
  await page.goto(TOOLS);
  await expect(
    page.getByRole("switch", { name: "Your own JSON data: bot may use this tool" }),
  ).toHaveAttribute("aria-checked", "true");

  await page.goto("/admin/demo/audit");
  const main = page.locator("main");
  const saved = main
    .getByRole("row")
    .filter({ hasText: "Tool pack settings saved" })
    // The target is named in words: the pack's name, not its id.
    .filter({ hasText: "Your own JSON data" });
  // The newest entry names this save's fields (only whenToUse after an earlier round stored the rest).
  await expect(saved.first()).toContainText("whenToUse");
  await expect(saved.first()).toContainText(E2E.operator.email);
  await expect(saved.filter({ hasText: "baseUrl" }).first()).toBeVisible();
  await expect(main.getByRole("row").filter({ hasText: "Tool pack turned on" }).first()).toContainText(
    "Your own JSON data",
  );
  await expect(main).not.toContainText(E2E.fixtureOrigin);
  await page.context().close();
});

test("Test shows what the model would see: only the listed fields, with size and chip", async ({
  browser,
}) => {
  const page = await signedIn(browser, E2E.operator);
  await page.goto(FETCH_JSON);
  const panel = page.getByTestId("test-panel");
  // fetch_json takes no arguments from the model: no JSON box, a sentence instead.
  await expect(panel.getByText("This tool takes no questions from the model")).toBeVisible();
  await expect(panel.locator("textarea")).toHaveCount(0);
  await panel.getByRole("button", { name: "Test", exact: true }).click();
  const result = panel.getByTestId("test-result");
  await expect(result).toContainText("Checking our website");
  await expect(result.locator("pre")).toContainText('"nextChange"');
  await expect(result.locator("pre")).toContainText("18:00");
  await expect(result.locator("pre")).not.toContainText("internalNotes");
  await expect(result.locator("pre")).not.toContainText("weekly");
  await expect(result).toContainText(/\d+ characters · about \d+ tokens/);
  // The list shows the test's outcome.
  await page.goto(TOOLS);
  await expect(page.locator('li[data-pack="fetch_json"]')).toContainText("Last test worked");
  await page.context().close();
});

test("a secret is write-only: after saving, no page HTML contains it", async ({ browser }) => {
  const page = await signedIn(browser, E2E.operator);
  await page.goto(CHECK_STOCK);
  // check_stock has an optional API key; its base URL is required, so the save must include it to succeed.
  const secretCard = page.locator('section[data-pack="check_stock"]');
  // An earlier --repeat-each round stored a key: the field then shows "Set on …" with Replace. Replace is a
  // client-side toggle, so it only works once React has hydrated it.
  // Save is a client form action: clicked before React hydrates the card, the click does nothing (seen under
  // load in CI), so the card must be live before anything is typed or clicked.
  await waitForHydration(secretCard.getByRole("button", { name: "Save", exact: true }));
  const replace = secretCard.getByRole("button", { name: "Replace" });
  if ((await replace.count()) > 0) await replace.click();
  await expect(secretCard.locator('input[type="password"]')).toHaveCount(1);
  await secretCard.getByLabel("Shop base URL").fill(E2E.fixtureOrigin);

  const secret = `e2e-secret-${Date.now().toString(36)}-do-not-leak`;
  await secretCard.locator('input[type="password"]').first().fill(secret);
  await secretCard.getByRole("button", { name: "Save", exact: true }).click();
  await expect(secretCard.getByText(/Set on /)).toBeVisible();
  expect(await page.content()).not.toContain(secret);

  await page.reload();
  expect(await page.content()).not.toContain(secret);
  for (const url of [TOOLS, CHECK_STOCK]) {
    const raw = await page.request.get(url);
    expect(await raw.text()).not.toContain(secret);
  }
  await page.context().close();
});

test("a viewer sees the form read-only, and a forged save is refused", async ({ browser }) => {
  const page = await signedIn(browser, E2E.viewer);
  await page.goto(FETCH_JSON);
  const card = fetchJsonCard(page);
  const baseUrl = card.getByLabel("Site base URL");
  await expect(baseUrl).toHaveValue(E2E.fixtureOrigin);
  await expect(baseUrl).toBeDisabled();
  await expect(card.getByLabel("Enabled: the bot may use this tool")).toBeDisabled();
  await expect(card.getByRole("button", { name: "Save", exact: true })).toHaveCount(0);
  await expect(page.getByText("Test this tool")).toHaveCount(0);
  // Read-only looks read-only: the disabled input is drawn on the muted surface with a dashed edge.
  await expect(baseUrl).toHaveCSS("border-top-style", "dashed");
  await expect(baseUrl).toHaveCSS("cursor", "not-allowed");

  // Forge: re-enable the inputs in the page and submit the form to the real server action.
  await card.evaluate((el) => {
    for (const f of el.querySelectorAll("fieldset")) f.disabled = false;
  });
  await baseUrl.fill("https://forged.michi-cafe.example");
  await card
    .locator("form")
    .first()
    .evaluate((f: HTMLFormElement) => f.requestSubmit());
  await expect(card.getByText(/Only an admin or owner of this business can do that/)).toBeVisible();

  await page.reload();
  await expect(fetchJsonCard(page).getByLabel("Site base URL")).toHaveValue(E2E.fixtureOrigin);
  await page.context().close();
});
