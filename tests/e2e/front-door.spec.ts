import AxeBuilder from "@axe-core/playwright";
import { expect, type Page, test } from "@playwright/test";
import { ownInstance } from "./own-instance";

// Issue 45 item 9, on the production build: what a stranger meets first. A production installation with the
// demo off and sign-up closed (the defaults) links to neither; one with both open (the e2e world's app) shows
// both. Every address nothing answers, /demo included when the demo is off, is a 404 in the app's look with a
// way home, in the reader's language.

// A server of its own starts in the first test's hook: the same budget as the other own-instance specs.
test.describe.configure({ mode: "serial", timeout: 180_000 });
const closed = ownInstance("front-door", { MICHI_DEMO: "false", MICHI_ALLOW_SIGNUP: "false" });

const FEATURES = [
  "Answers with sources",
  "A person can take over",
  "WhatsApp and Telegram",
  "Acts only on a yes",
];

async function seriousFaults(page: Page) {
  const result = await new AxeBuilder({ page }).analyze();
  return result.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => ({ url: page.url(), id: v.id, nodes: v.nodes.map((n) => n.target) }));
}

test("the landing page names what the product does and offers sign-up and the demo when they are on", async ({
  page,
}) => {
  await page.goto("/");
  const main = page.locator("main");
  for (const title of FEATURES) await expect(main.getByRole("heading", { name: title })).toBeVisible();
  await expect(main).toContainText("shows the pages it used");
  await expect(main.getByRole("link", { name: "Create an account" })).toHaveAttribute("href", "/signup");
  await expect(main.getByRole("link", { name: "Sign in" })).toHaveAttribute("href", "/admin");
  await expect(main.getByRole("link", { name: "Try the demo" })).toHaveAttribute("href", "/demo");
  await main.getByRole("link", { name: "Create an account" }).click();
  await expect(page).toHaveURL(/\/signup$/);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Create your michi-chat account");
});

test("with the demo off and sign-up closed, the landing page links to neither, and /demo is the styled 404", async ({
  page,
}) => {
  await page.goto(`${closed.base}/`);
  const main = page.locator("main");
  await expect(main.getByRole("heading", { name: "Answers with sources" })).toBeVisible();
  await expect(main.getByRole("link", { name: "Sign in" })).toBeVisible();
  await expect(main.getByRole("link", { name: "Try the demo" })).toHaveCount(0);
  await expect(main.getByRole("link", { name: "Create an account" })).toHaveCount(0);
  await expect(page.locator('a[href="/demo"], a[href="/signup"]')).toHaveCount(0);

  const demo = await page.goto(`${closed.base}/demo`);
  expect(demo?.status()).toBe(404);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Page not found");
  expect(await seriousFaults(page)).toEqual([]);
  await page.getByRole("link", { name: "Go to the home page" }).click();
  await expect(page).toHaveURL(`${closed.base}/`);
  await expect(main.getByRole("heading", { name: "Answers with sources" })).toBeVisible();
});

for (const colorScheme of ["light", "dark"] as const)
  test(`an unknown address is a 404 in the app's look with a way home (${colorScheme})`, async ({
    browser,
  }) => {
    const context = await browser.newContext({ colorScheme });
    const page = await context.newPage();
    const res = await page.goto("/no-such-page/anywhere");
    expect(res?.status()).toBe(404);
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("Page not found");
    await expect(page).toHaveTitle("Not found · michi-chat");
    // The app's stylesheet is on the page (the card has the app's border and radius), not Next's bare page.
    await expect(page.locator(".card")).toHaveCSS("border-radius", "12px");
    expect(await seriousFaults(page)).toEqual([]);
    await page.getByRole("link", { name: "Go to the home page" }).click();
    await expect(page.getByRole("heading", { name: "Answers with sources" })).toBeVisible();
    await context.close();
  });

test("the 404 and the landing page speak the browser's language", async ({ browser }) => {
  const context = await browser.newContext({ locale: "es-ES" });
  const page = await context.newPage();
  expect((await page.goto("/nada-por-aqui"))?.status()).toBe(404);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Página no encontrada");
  await expect(page.locator("main")).toHaveAttribute("lang", "es");
  await page.getByRole("link", { name: "Ir a la página de inicio" }).click();
  await expect(page.getByRole("heading", { name: "Respuestas con fuentes" })).toBeVisible();
  await expect(page.getByRole("link", { name: "Crear una cuenta" })).toBeVisible();
  await context.close();

  const ja = await browser.newContext({ locale: "ja-JP" });
  const jaPage = await ja.newPage();
  expect((await jaPage.goto(`${closed.base}/demo`))?.status()).toBe(404);
  await expect(jaPage.getByRole("heading", { level: 1 })).toHaveText("ページが見つかりません");
  await ja.close();
});
