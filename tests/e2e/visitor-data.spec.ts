import { readFileSync } from "node:fs";
import { expect, request, test } from "@playwright/test";
import { E2E } from "../support/e2e-env";
import { signIn, visitorTurn, waitForHydration } from "./admin-support";

// One visitor's data on request (issue 46), on the production build: the owner finds the visitor by the link
// of one of their conversations, downloads a readable copy, and erases it after typing the link again.

test("an owner finds a visitor by a conversation link, downloads a copy and erases it", async ({ page }) => {
  const widget = await request.newContext({ baseURL: E2E.appUrl });
  const id = await visitorTurn(widget, E2E.cafe.widgetKey, "privacy check: <b>hello</b>");
  await widget.dispose();
  const link = `${E2E.appUrl}/admin/${E2E.cafe.slug}/conversations/${id}`;

  await signIn(page, E2E.operator);
  await page.goto(`/admin/${E2E.cafe.slug}/privacy`);
  await page.getByLabel("Find by").selectOption("conversation");
  await page.getByLabel("Looking for").fill(link);
  await page.getByRole("button", { name: "Find", exact: true }).click();
  await expect(page.getByRole("row", { name: "Conversations 1" })).toBeVisible();

  const [download] = await Promise.all([
    page.waitForEvent("download"),
    page.getByRole("link", { name: "Download as a page (HTML)" }).click(),
  ]);
  const html = readFileSync((await download.path())!, "utf8");
  expect(html).toContain("privacy check: &lt;b&gt;hello&lt;/b&gt;");

  const confirm = page.getByLabel("Type it again to confirm");
  await waitForHydration(confirm);
  await confirm.fill("not the link");
  await page.getByRole("button", { name: "Erase this visitor's data" }).click();
  await expect(
    page.getByRole("alert").filter({ hasText: "Type the same e-mail, number, id or link again" }),
  ).toBeVisible();
  await page.getByLabel("Type it again to confirm").fill(link);
  await page.getByRole("button", { name: "Erase this visitor's data" }).click();
  await expect(page.getByRole("status").filter({ hasText: /Erased \d+ records/ })).toBeVisible();
  await expect(page).not.toHaveURL(/value=/);

  await page.goto(`/admin/${E2E.cafe.slug}/privacy?by=conversation&value=${id}`);
  await expect(page.getByText("Nothing is stored about this visitor.")).toBeVisible();
});
