import { expect, test } from "@playwright/test";
import { E2E } from "../support/e2e-env";

test("the production server is healthy and ready", async ({ request }) => {
  const health = await request.get("/api/health");
  expect(health.status()).toBe(200);
  expect(await health.json()).toEqual({ ok: true, db: "ok" });
  const ready = await request.get("/api/ready");
  expect((await ready.json()).migrations).toBe("applied");
});

test("admin pages refuse to be framed", async ({ request }) => {
  const res = await request.get("/");
  expect(res.headers()["content-security-policy"]).toContain("frame-ancestors 'none'");
});

test("the seeded operator signs in and lands on the operator console with the list of businesses", async ({
  page,
}) => {
  await page.goto("/signin");
  await page.getByLabel("E-mail").fill(E2E.operator.email);
  await page.getByLabel("Password").fill(E2E.operator.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(/\/admin\/operator$/);
  await expect(page.getByRole("heading", { level: 1, name: "Businesses" })).toBeVisible();
  await expect(page.getByRole("link", { name: "Open Michi Café (demo)" })).toBeVisible();
  // In a business's admin the header names the console once and the account by its e-mail.
  await page.getByRole("link", { name: "Open Michi Café (demo)" }).click();
  await expect(page).toHaveURL(/\/admin\/demo$/);
  const banner = page.getByRole("banner");
  await expect(banner.getByRole("link", { name: "Operator console" })).toBeVisible();
  await expect(banner).toContainText(E2E.operator.email);
  await expect(banner).not.toContainText(/Operator\s+Operator/);
  // A favicon is served.
  const icon = await page.request.get("/icon.svg");
  expect(icon.status()).toBe(200);
  expect(icon.headers()["content-type"]).toContain("image/svg+xml");
});

test("admin and sign-in pages allow only scripts carrying this response's nonce", async ({
  page,
  request,
}) => {
  const nonceOf = (csp: string | undefined) =>
    /script-src 'self' 'nonce-([^']+)' 'strict-dynamic'/.exec(csp ?? "")?.[1];
  const first = await request.get("/signin");
  const second = await request.get("/signin");
  const a = nonceOf(first.headers()["content-security-policy"]);
  const b = nonceOf(second.headers()["content-security-policy"]);
  expect(a).toBeTruthy();
  expect(b).toBeTruthy();
  expect(a).not.toBe(b);
  // Next put the nonce on every script it rendered.
  const scripts = (await first.text()).match(/<script\b[^>]*>/g) ?? [];
  expect(scripts.length).toBeGreaterThan(0);
  for (const tag of scripts) expect(tag).toContain(`nonce="${a}"`);

  // In the browser the page still works (hydrated sign-in, admin pages), and an injected inline script does not run.
  const violations: string[] = [];
  page.on("console", (m) => {
    if (/Content Security Policy/i.test(m.text())) violations.push(m.text());
  });
  await page.goto("/signin");
  await page.getByLabel("E-mail").fill(E2E.operator.email);
  await page.getByLabel("Password").fill(E2E.operator.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(/\/admin\/operator/);
  expect(violations).toEqual([]);
  // Markup that slipped into the page cannot run script: an inline handler carries no nonce. The browser
  // either reports a violation or runs the handler, whichever happens first decides.
  const outcome = await page.evaluate(
    () =>
      new Promise<string>((resolve) => {
        document.addEventListener(
          "securitypolicyviolation",
          (e) => resolve(`blocked ${e.effectiveDirective}`),
          {
            once: true,
          },
        );
        (window as { __ran?: () => void }).__ran = () => resolve("ran");
        const img = document.createElement("img");
        img.setAttribute("onerror", "window.__ran()");
        img.src = "data:,";
        document.body.append(img);
      }),
  );
  expect(outcome).toMatch(/^blocked script-src/);
});
