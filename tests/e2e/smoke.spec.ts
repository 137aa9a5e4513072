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

test("the seeded operator signs in and lands in the demo tenant", async ({ page }) => {
  await page.goto("/signin");
  await page.getByLabel("E-mail").fill(E2E.operator.email);
  await page.getByLabel("Password").fill(E2E.operator.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(/\/admin\/demo/);
});
