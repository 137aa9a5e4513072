import {
  type APIRequestContext,
  type Browser,
  type BrowserContext,
  expect,
  type Locator,
  type Page,
  type TestInfo,
} from "@playwright/test";
import { E2E } from "../support/e2e-env";

// Shared by the admin specs: signing in, a visitor turn through the public widget API, and screenshots
// saved as the run's artifacts.

type Who = { email: string; password: string };
type Cookies = Awaited<ReturnType<BrowserContext["cookies"]>>;

// The session cookies of each seeded account, kept for the life of this worker: the first spec that needs
// the operator (or the viewer) signs in through the form, and every later one starts from that session, the
// way Playwright's storageState shares a signed-in state. Signing in costs a scrypt hash on the server and
// three page loads; the form itself is proven by the first sign-in here, by smoke.spec.ts and by
// mail-flows.spec.ts. Only the seeded accounts are kept: no spec ends their sessions, while the accounts a
// spec creates (mail-flows) change their password and must sign in anew.
const sessions = new Map<string, Promise<Cookies>>();
const SHARED: readonly Who[] = [E2E.operator, E2E.viewer];

async function signInThroughForm(page: Page, who: Who) {
  await page.goto("/signin");
  await page.getByLabel("E-mail").fill(who.email);
  await page.getByLabel("Password").fill(who.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(/\/admin\//);
}

/** Signs this page's browser context in as `who`; the page itself is left where it was. */
export async function signIn(page: Page, who: Who) {
  if (!SHARED.some((s) => s.email === who.email && s.password === who.password)) {
    await signInThroughForm(page, who);
    return;
  }
  let kept = sessions.get(who.email);
  if (!kept) {
    kept = (async () => {
      await signInThroughForm(page, who);
      return page.context().cookies(E2E.appUrl);
    })();
    sessions.set(who.email, kept);
    // A failed sign-in is not kept: the next spec tries the form again and reports its own failure.
    kept.catch(() => sessions.delete(who.email));
    await kept;
    return;
  }
  await page.context().addCookies(await kept);
}

export async function signedInContext(
  browser: Browser,
  who: Who,
  opts: { colorScheme?: "light" | "dark"; width?: number } = {},
): Promise<Page> {
  const context = await browser.newContext({
    colorScheme: opts.colorScheme ?? "light",
    viewport: { width: opts.width ?? 1280, height: 900 },
  });
  const page = await context.newPage();
  await signIn(page, who);
  return page;
}
/** One visitor turn from the platform's own origin; returns the conversation id from the stream's start. */
export async function visitorTurn(widget: APIRequestContext, key: string, message: string): Promise<string> {
  const headers = { Origin: E2E.appUrl };
  const session = await widget.post(`/api/widget/${key}/session`, { headers });
  expect(session.status()).toBe(200);
  const { token } = (await session.json()) as { token: string };
  const res = await widget.post(`/api/widget/${key}/chat`, {
    headers: { ...headers, Authorization: `Bearer ${token}` },
    data: { message, pageUrl: `${E2E.appUrl}/`, lang: "en" },
  });
  expect(res.status()).toBe(200);
  const body = await res.text();
  const start = /event: start\ndata: (.+)\n/.exec(body);
  expect(start, body).not.toBeNull();
  return (JSON.parse(start![1]!) as { conversationId: string }).conversationId;
}

/** A full-page screenshot kept with the run's artifacts (test-results/e2e-artifacts) and attached to the report. */
export async function keepScreenshot(page: Page, testInfo: TestInfo, name: string) {
  const path = testInfo.outputPath(`${name}.png`);
  await page.screenshot({ path, fullPage: true });
  await testInfo.attach(name, { path, contentType: "image/png" });
}

/** Waits until React has hydrated the element (React keeps its props on it then): a click or a keystroke
 * before that reaches no handler, and the page silently ignores it. */
export async function waitForHydration(el: Locator): Promise<void> {
  await expect
    .poll(() => el.evaluate((node) => Object.keys(node).some((k) => k.startsWith("__reactProps"))))
    .toBe(true);
}

/**
 * A business of the spec's own, made by the operator on the operator console with the operator as its owner,
 * so a spec run (each of --repeat-each's too) starts from an empty business and never meets an earlier run's
 * state. `domains` go on Site & embed (the host page's origin, for the widget). `page` must be the operator's.
 */
export async function createBusiness(
  page: Page,
  name: string,
  opts: { domains?: string[] } = {},
): Promise<{ slug: string; widgetKey: string }> {
  await page.goto("/admin/operator");
  const form = page.locator("#create");
  const nameField = form.getByLabel("Business name");
  // React derives the address from the name as it is typed: a name filled in before the form has hydrated
  // left the address empty (seen once in CI on a slow machine).
  await waitForHydration(nameField);
  await nameField.fill(name);
  const slugField = form.getByLabel("Address (slug)");
  await expect(slugField).not.toHaveValue("");
  const slug = await slugField.inputValue();
  await form.getByLabel("Owner's e-mail").fill(E2E.operator.email);
  await form.getByRole("button", { name: "Create business" }).click();
  await expect(form.getByRole("status").first()).toContainText("The existing account was made its owner");
  await page.goto(`/admin/${slug}/embed`);
  const widgetKey =
    /data-michi-key="([^"]+)"/.exec((await page.locator("main").textContent()) ?? "")?.[1] ?? "";
  expect(widgetKey).toMatch(/^wk_/);
  if (opts.domains?.length) {
    await page.getByLabel("Your site's domains").fill(opts.domains.join("\n"));
    await page.getByRole("button", { name: "Save domains" }).click();
    await expect(page.getByText("Site domains saved.")).toBeVisible();
  }
  return { slug, widgetKey };
}

/** A name no earlier run of this world used: the time and the repetition (--repeat-each) of this run. */
export const runName = (prefix: string, testInfo: TestInfo) =>
  `${prefix} ${Date.now().toString(36)}${testInfo.repeatEachIndex}`;
