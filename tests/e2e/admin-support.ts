import { type APIRequestContext, type Browser, expect, type Page, type TestInfo } from "@playwright/test";
import { E2E } from "../support/e2e-env";

// Shared by the admin specs: signing in, a visitor turn through the public widget API, and screenshots
// saved as the run's artifacts.

export async function signIn(page: Page, who: { email: string; password: string }) {
  await page.goto("/signin");
  await page.getByLabel("E-mail").fill(who.email);
  await page.getByLabel("Password").fill(who.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(/\/admin\//);
}

export async function signedInContext(
  browser: Browser,
  who: { email: string; password: string },
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
