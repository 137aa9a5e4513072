import { expect, test } from "@playwright/test";
import { E2E } from "../support/e2e-env";
import { signedInContext } from "./admin-support";

// Opening hours from the form alone, on the production build: the owner types the week, a holiday and the
// time zone; the Test panel shows what the model gets. The two zones are 25 hours apart (UTC+14 and UTC-11),
// so at any moment their local dates differ: the holiday typed for Kiritimati's today is not Pago Pago's.

const PACK = `/admin/${E2E.lab.slug}/tools/get_opening_status`;

const localDate = (timeZone: string) =>
  new Intl.DateTimeFormat("en-CA", { timeZone, year: "numeric", month: "2-digit", day: "2-digit" }).format(
    new Date(),
  );

test("the weekly grid answers open now in the business's zone, across the date line and a holiday", async ({
  browser,
}) => {
  const page = await signedInContext(browser, E2E.operator);
  await page.goto(PACK);
  const card = page.locator('section[data-pack="get_opening_status"]');
  const holiday = localDate("Pacific/Kiritimati");
  expect(holiday).not.toBe(localDate("Pacific/Pago_Pago"));

  // A wrong line is named, with what was expected, and nothing typed is lost.
  await card.getByLabel("Weekly hours").fill("Mon-Sun 00:00-24:00\nSat 9-1");
  await card.getByRole("button", { name: "Save", exact: true }).click();
  await expect(card.getByText(/Line 2 \("Sat 9-1"\): "9-1" is not a time range/)).toBeVisible();
  await expect(card.getByLabel("Weekly hours")).toHaveValue("Mon-Sun 00:00-24:00\nSat 9-1");

  await card.getByLabel("Weekly hours").fill("Mon-Sun 00:00-24:00");
  await card.getByLabel("Holidays and exceptions").fill(`${holiday} closed Founders' Day`);
  await card.getByLabel("Time zone").selectOption("Pacific/Kiritimati");
  await card.getByRole("button", { name: "Save", exact: true }).click();
  await expect(card.getByText("Checking if we're open: saved.")).toBeVisible();

  const panel = page.getByTestId("test-panel");
  const result = panel.getByTestId("test-result").locator("pre");
  await panel.getByRole("button", { name: "Test", exact: true }).click();
  await expect(result).toContainText(/"open":\s*false/);
  await expect(result).toContainText("Founders' Day");
  await expect(result).toContainText(/"nextChange":\s*"\d{4}-\d{2}-\d{2}T00:00:00\+14:00"/);

  // The same hours in a zone where it is still yesterday: open all day, no holiday.
  await card.getByLabel("Time zone").selectOption("Pacific/Pago_Pago");
  // The same message as the first save: wait for this save's own answer before testing.
  const saved = page.waitForResponse((r) => r.request().method() === "POST" && r.url().endsWith(PACK));
  await card.getByRole("button", { name: "Save", exact: true }).click();
  await saved;
  await expect(card.getByText("Checking if we're open: saved.")).toBeVisible();
  await panel.getByRole("button", { name: "Test", exact: true }).click();
  await expect(result).toContainText(/"open":\s*true/);
  await expect(result).toContainText(/-11:00"/);
  await expect(result).not.toContainText("Founders' Day");
  await page.context().close();
});
