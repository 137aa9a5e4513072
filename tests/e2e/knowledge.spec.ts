import { type APIRequestContext, expect, type Page, request, test } from "@playwright/test";
import { E2E } from "../support/e2e-env";
import { hostPageAt } from "../support/host-page";
import { createBusiness, runName, signedInContext } from "./admin-support";
import { model, panelOf } from "./widget-helpers";

// The business's own website as the assistant's knowledge, on the production build: the owner adds the
// fixture site's sitemap on the Tools page, watches the sync on the Knowledge page, asks a test question, and a
// visitor gets an answer citing the right page. Then the site changes and loses a page; re-syncs pick both up.
// Every wait is on what a page shows (counts, sync state, the last sync's time), never on time itself.
// Each run (each of --repeat-each's too) has a bakery of its own and starts the fixture site afresh, so it
// never finds an earlier run's saved settings, index, removed page or written answer.

test.describe.configure({ mode: "serial" });

let bakery = { slug: "", widgetKey: "" };
const knowledgePage = () => `/admin/${bakery.slug}/knowledge`;
const host = hostPageAt(E2E.hostPageOrigin);
const bikesUrl = () => `${E2E.fixtureOrigin}/kb/bikes`;

// The visitor's question is only answered by /kb/bikes; the scripted model searches, then quotes the first
// passage and cites it as [1] (what the widget links is decided by the server, from the search result).
const BIKES_RULE = {
  match: "bike",
  steps: [
    {
      type: "tool_calls" as const,
      calls: [{ name: "search_knowledge", arguments: '{"query":"bicycle parking"}' }],
    },
    { type: "text" as const, text: "Found: {{tool.found}}. {{tool.passages.0.text}} [1]" },
  ],
};

let site: APIRequestContext;

test.beforeAll(async ({ browser }, testInfo) => {
  // The fixture site's certificate comes from the world's throwaway CA.
  site = await request.newContext({ baseURL: E2E.fixtureOrigin, ignoreHTTPSErrors: true });
  expect((await site.get("/__kb/control?reset=1")).status()).toBe(200);
  // Its website is the fixture site; the widget runs on the host page.
  const operator = await signedInContext(browser, E2E.operator);
  bakery = await createBusiness(operator, runName("Bakery", testInfo), {
    domains: [E2E.hostPageOrigin, E2E.fixtureOrigin],
  });
  await operator.context().close();
});
test.afterAll(async () => {
  await site.dispose();
});
test.beforeEach(async () => {
  await model.reset();
  await model.setRules([BIKES_RULE]);
});

async function lastSync(page: Page): Promise<string | null> {
  return page
    .getByTestId("last-sync")
    .locator("time")
    .getAttribute("datetime", { timeout: 1_000 })
    .catch(() => null);
}

/**
 * Waits until the Knowledge page shows a finished sync newer than `before`. The page refreshes itself while a
 * sync runs; reloading here as well covers the moment before the queue has taken the run.
 */
async function waitForSyncAfter(page: Page, before: string | null) {
  await expect(async () => {
    await page.reload();
    await expect(page.getByTestId("sync-state")).toHaveText("Up to date", { timeout: 1_000 });
    const now = await lastSync(page);
    expect(now).not.toBeNull();
    expect(now).not.toBe(before);
  }).toPass();
}

async function resync(page: Page) {
  const before = await lastSync(page);
  await page.getByRole("button", { name: "Re-sync now" }).click();
  await waitForSyncAfter(page, before);
}

async function askTest(page: Page, question: string) {
  await page.locator("#ask").fill(question);
  await page.getByRole("button", { name: "Ask", exact: true }).click();
  await expect(page).toHaveURL((url) => url.searchParams.get("ask") === question);
  return page.getByTestId("test-result");
}

async function visitorAsks(page: Page, message: string) {
  await page.goto(host.url({ key: bakery.widgetKey }));
  await page.getByRole("button", { name: "Open chat" }).click();
  const panel = panelOf(page, bakery.widgetKey);
  const input = panel.getByRole("textbox", { name: "Your message" });
  await input.fill(message);
  await input.press("Enter");
  const reply = panel.locator(".msg.bot").last();
  await expect(reply.locator(".bubble")).toContainText("Found:");
  return reply;
}

test("an owner adds the site, the sync finishes, and a visitor's answer cites the right page", async ({
  browser,
}) => {
  test.setTimeout(90_000);
  const owner = await signedInContext(browser, E2E.operator);
  await owner.goto(`/admin/${bakery.slug}/tools/search_knowledge`);
  const card = owner.locator('section[data-pack="search_knowledge"]');
  await card.getByLabel("Enabled: the bot may use this tool").check();
  await card.getByLabel("Start page or sitemap").fill(`${E2E.fixtureOrigin}/kb/sitemap.xml`);
  await card.getByRole("combobox", { name: /^Re-sync/ }).selectOption("off");
  await card.getByRole("button", { name: "Save", exact: true }).click();
  await expect(card.getByText("Searching our website: saved.")).toBeVisible();

  await owner.goto(knowledgePage());
  await waitForSyncAfter(owner, null);
  // Indexed: the home page, bikes, cakes and the PDF; the copy, the noindex page and the robots-disallowed
  // page are skipped, each with its reason.
  await expect(owner.getByTestId("count-indexed")).toHaveText("4");
  await expect(owner.getByTestId("count-failed")).toHaveText("0");
  const skipped = owner.getByTestId("count-skipped");
  await expect(skipped).toContainText("duplicate");
  await expect(skipped).toContainText("noindex");
  await expect(skipped).toContainText("robots.txt");
  const pages = owner.locator("#pages");
  await expect(pages.getByRole("row").filter({ hasText: "/kb/allergens.pdf" })).toContainText("indexed");

  const answer = await askTest(owner, "bicycle parking");
  await expect(answer.getByRole("link").first()).toHaveAttribute("href", bikesUrl());
  await expect(answer.locator("pre")).toContainText("covered rack");
  // The PDF's text is searchable too.
  await expect((await askTest(owner, "sesame")).getByRole("link").first()).toHaveAttribute(
    "href",
    `${E2E.fixtureOrigin}/kb/allergens.pdf`,
  );
  // Another wording beside the question, as the assistant sends up to three: one run, and each page says
  // which search found it.
  await owner.getByLabel("Other wording 1").fill("sesame");
  const both = await askTest(owner, "bicycle parking");
  await expect(owner).toHaveURL((url) => url.searchParams.getAll("also").includes("sesame"));
  await expect(both.getByRole("list", { name: "Searches" })).toContainText("“sesame” (counts half)");
  const item = (href: string) => both.locator("li").filter({ has: owner.locator(`a[href="${href}"]`) });
  await expect(item(bikesUrl())).toContainText(/found by search 1\b/);
  await expect(item(`${E2E.fixtureOrigin}/kb/allergens.pdf`)).toContainText(/found by search (1 and )?2/);
  // A wording that repeats the question is refused on the card, and what was typed stays.
  await owner.getByLabel("Other wording 1").fill("Bicycle parking");
  await owner.getByRole("button", { name: "Ask", exact: true }).click();
  await expect(owner.locator("#test-error")).toHaveText(/Wording 2 is the same as the question/);
  await expect(owner.getByLabel("Other wording 1")).toHaveValue("Bicycle parking");
  await expect(owner.getByTestId("test-result")).toHaveCount(0);

  // A visitor on the customer's page; its context trusts the fixture site so the cited page opens.
  const visitorContext = await browser.newContext({ ignoreHTTPSErrors: true });
  const visitor = await visitorContext.newPage();
  const reply = await visitorAsks(visitor, "where do I leave my bike?");
  await expect(reply.locator(".bubble")).toContainText("Found: true.");
  await expect(reply.locator(".bubble")).toContainText("covered rack for twelve bikes");
  const cite = reply.locator(".cites a");
  await expect(cite).toHaveCount(1);
  await expect(cite).toHaveAttribute("href", bikesUrl());
  await expect(cite).toHaveAttribute("target", "_blank");
  await expect(cite).toContainText("Coming by bike");
  const opened = visitorContext.waitForEvent("page");
  await cite.click();
  const tab = await opened;
  await expect(tab).toHaveURL(bikesUrl());
  await expect(tab.locator("main")).toContainText("covered rack");
  await tab.close();
  // After a reload the conversation comes back from the server with the answer's source still under it.
  await visitor.reload();
  await visitor.getByRole("button", { name: "Open chat" }).click();
  const restored = panelOf(visitor, bakery.widgetKey).locator(".msg.bot").last();
  await expect(restored.locator(".bubble")).toContainText("covered rack for twelve bikes");
  await expect(restored.locator(".cites a")).toHaveAttribute("href", bikesUrl());
  await expect(restored.locator(".cites a")).toHaveAttribute("target", "_blank");
  // The model searched with the pack, and got the passage from the indexed page.
  const sent = await model.requests();
  const toolResults = sent.flatMap((r) => r.body.messages.filter((m) => m.role === "tool"));
  expect(toolResults.some((m) => String(m.content).includes(bikesUrl()))).toBe(true);
  await visitorContext.close();
  await owner.context().close();
});

test("a changed page is picked up by Re-sync now, and a removed page leaves the answers", async ({
  browser,
}) => {
  test.setTimeout(120_000);
  const owner = await signedInContext(browser, E2E.operator);
  await owner.goto(knowledgePage());
  await expect(owner.getByTestId("sync-state")).toHaveText("Up to date");
  await expect((await askTest(owner, "birthday cake")).locator("pre")).toContainText("three days ahead");

  expect((await site.get("/__kb/control?change=1")).status()).toBe(200);
  await owner.goto(knowledgePage());
  await resync(owner);
  const cake = await askTest(owner, "birthday cake");
  await expect(cake.locator("pre")).toContainText("five days ahead");
  await expect(cake.locator("pre")).not.toContainText("three days ahead");

  // The bikes page goes: the first 404 keeps its last good version, the second removes it.
  expect((await site.get("/__kb/control?remove=/kb/bikes")).status()).toBe(200);
  await owner.goto(knowledgePage());
  await resync(owner);
  await expect(owner.getByTestId("count-indexed")).toHaveText("4");
  await resync(owner);
  await expect(owner.getByTestId("count-indexed")).toHaveText("3");
  await expect(owner.locator("#pages")).not.toContainText("/kb/bikes");
  // No word of it is on the pages left, so the Test panel says so instead of showing a 0% passage.
  const gone = await askTest(owner, "bicycle parking");
  await expect(gone.getByText("No word of the question is on your pages.")).toBeVisible();
  await expect(gone.getByText(/of the question's words/)).toHaveCount(0);

  const visitorContext = await browser.newContext({ ignoreHTTPSErrors: true });
  const reply = await visitorAsks(await visitorContext.newPage(), "where do I leave my bike?");
  await expect(reply.locator(".bubble")).toContainText("Found: false.");
  await expect(reply.locator(".bubble")).not.toContainText("covered rack");
  await expect(reply.locator(".cites a")).toHaveCount(0);
  await visitorContext.close();
  await owner.context().close();
});

test("a question the site cannot answer gets a written answer from Unanswered questions, and it can be edited", async ({
  browser,
}) => {
  const owner = await signedInContext(browser, E2E.operator);
  // The visitor's bike question of the previous test found nothing once its page was gone.
  await owner.goto(`/admin/${bakery.slug}/unanswered`);
  const group = owner.locator("li.card").filter({ hasText: "where do I leave my bike?" });
  await expect(group).toContainText("not found on your website");
  await group.getByRole("link", { name: "Write the answer" }).click();

  await expect(owner).toHaveURL((url) => url.pathname === knowledgePage());
  const add = owner.locator("form").filter({ has: owner.getByRole("button", { name: "Save answer" }) });
  await expect(add.getByLabel("Questions (one per line)")).toHaveValue("where do I leave my bike?");
  await add.getByLabel("Answer", { exact: true }).fill("Lock your bike to the railing by the front door.");
  await add.getByRole("button", { name: "Save answer" }).click();
  await expect(add.getByText("Answer saved.")).toBeVisible();

  const item = owner.locator("#answers li").filter({ hasText: "where do I leave my bike?" });
  await expect(item).toContainText("Lock your bike to the railing");
  await item.locator("summary").click();
  const edit = item.locator("form").filter({ has: owner.getByRole("button", { name: "Save changes" }) });
  await edit.getByLabel("Answer", { exact: true }).fill("Bikes go on the railing by the front door.");
  await edit.getByRole("button", { name: "Save changes" }).click();
  await expect(edit.getByText("Answer updated.")).toBeVisible();
  await expect(item.locator("p").nth(1)).toHaveText("Bikes go on the railing by the front door.");

  const test = await askTest(owner, "where do I leave my bike");
  await expect(test).toContainText("Your answer matches: Bikes go on the railing by the front door.");
  await owner.context().close();
});
