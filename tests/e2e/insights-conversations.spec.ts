import AxeBuilder from "@axe-core/playwright";
import { type APIRequestContext, expect, request, test } from "@playwright/test";
import { E2E } from "../support/e2e-env";
import { fakeModelControl } from "../support/fake-model";
import { signIn } from "./admin-support";

// Conversation logs as a tenant admin and a viewer use them, on conversations made through the widget API.

const model = fakeModelControl(E2E.modelUrl);
const QUESTION = "insights check: are you open right now?";
const ANSWER = "Insights answer: open until 18:00.";

let widget: APIRequestContext;
let cafeConversation: string;
let otherConversation: string;

/** One visitor turn through the public widget API, from the platform's own origin; returns the conversation id. */
async function chat(key: string, message: string): Promise<string> {
  const headers = { Origin: E2E.appUrl };
  const session = await widget.post(`/api/widget/${key}/session`, { headers });
  expect(session.status()).toBe(200);
  const { token } = (await session.json()) as { token: string };
  const res = await widget.post(`/api/widget/${key}/chat`, {
    headers: { ...headers, Authorization: `Bearer ${token}` },
    data: { message, pageUrl: `${E2E.appUrl}/menu?visitor=private`, lang: "en" },
  });
  expect(res.status()).toBe(200);
  const body = await res.text();
  const done = /event: done\ndata: (.+)\n/.exec(body);
  expect(done, body).not.toBeNull();
  return (JSON.parse(done![1]!) as { conversationId: string }).conversationId;
}

test.beforeAll(async () => {
  widget = await request.newContext({ baseURL: E2E.appUrl });
  await model.reset();
  await model.setRules([
    {
      match: "insights check",
      steps: [
        { type: "tool_calls", calls: [{ name: "get_opening_status", arguments: "{}" }] },
        { type: "text", text: "Insights answer: open until {{tool.nextChange}}." },
      ],
    },
  ]);
  cafeConversation = await chat(E2E.cafe.widgetKey, QUESTION);
  // No rule matches here: the fake model echoes, and no tool runs.
  otherConversation = await chat(E2E.other.widgetKey, "hello from the other shop");
});

test.afterAll(async () => {
  await widget?.dispose();
  await model.reset();
});

test("an admin finds the widget conversation and reads its tool trace", async ({ page }) => {
  await signIn(page, E2E.operator);
  await page.goto(`/admin/${E2E.cafe.slug}`);
  await page
    .getByRole("navigation", { name: "Admin sections" })
    .getByRole("link", { name: "Conversations" })
    .click();
  await expect(page.getByRole("heading", { level: 1, name: "Conversations" })).toBeVisible();

  // Filter by the pack and search a word of the question: the conversation is still there.
  await page.getByLabel("Tool used").selectOption("get_opening_status");
  await page.getByLabel("Search messages").fill("insights");
  await page.getByRole("button", { name: "Apply" }).click();
  await expect(page).toHaveURL(/pack=get_opening_status/);
  const row = page.getByRole("row").filter({ hasText: QUESTION });
  await expect(row).toHaveCount(1);
  await expect(row).toContainText("Answered");
  await expect(row).toContainText("Checking if we're open");
  // A word nobody used finds nothing.
  await page.getByLabel("Search messages").fill("zebracrossing");
  await page.getByRole("button", { name: "Apply" }).click();
  await expect(page.getByText("No conversation matches these filters.")).toBeVisible();
  await page.getByLabel("Search messages").fill("insights");
  await page.getByRole("button", { name: "Apply" }).click();

  await page.getByRole("link", { name: QUESTION }).click();
  await expect(page).toHaveURL(new RegExp(`/conversations/${cafeConversation}$`));
  await expect(page.getByRole("article", { name: "Visitor" })).toContainText(QUESTION);
  await expect(page.getByRole("article", { name: "Bot" })).toContainText(ANSWER);
  // The page is recorded without its query string; the language is the one the widget sent.
  await expect(page.getByText(`${E2E.appUrl}/menu`, { exact: true })).toBeVisible();
  await expect(page.getByText("visitor=private")).toHaveCount(0);

  const trace = page.locator("details").filter({ hasText: "Tool: Checking if we're open" });
  await expect(trace).toHaveCount(1);
  const result = trace.locator("pre").nth(1);
  await expect(result).toBeHidden();
  await trace.locator("summary").click();
  // Exactly the projected result the model saw: two fields, not the fixture's whole payload.
  await expect(result).toHaveText('{"open":true,"nextChange":"18:00"}');
  await expect(trace).not.toContainText("internalNotes");
  await expect(trace).toContainText("34 characters");
  await expect(trace.locator("dd").filter({ hasText: /^ok$/ })).toHaveCount(1);
  await expect(page.locator("#delete summary")).toHaveText("Delete conversation");
  await expect(page.locator("#delete fieldset")).toHaveJSProperty("disabled", false);
});

test("a viewer reads the transcript but cannot delete it or export", async ({ page }) => {
  await signIn(page, E2E.viewer);
  await page.goto(`/admin/${E2E.cafe.slug}/conversations/${cafeConversation}`);
  await expect(page.getByRole("article", { name: "Bot" })).toContainText(ANSWER);
  const trace = page.locator("details").filter({ hasText: "Tool: Checking if we're open" });
  await trace.locator("summary").click();
  await expect(trace.getByText('{"open":true,"nextChange":"18:00"}')).toBeVisible();
  await expect(page.getByText("Only an admin or owner can delete conversations.")).toBeVisible();
  const group = page.locator("#delete fieldset");
  await expect(group).toHaveJSProperty("disabled", true);
  const confirm = page.getByRole("button", { name: "Yes, delete it" });
  await group.evaluate((f: HTMLFieldSetElement) => {
    f.querySelector("details")!.open = true;
  });
  await expect(confirm).toBeDisabled();

  // Forge: enable the controls in the page and submit to the real server action, which refuses.
  await group.evaluate((f: HTMLFieldSetElement) => {
    f.disabled = false;
  });
  await confirm.click();
  await expect(page.getByText(/Only an admin or owner of this business can do that/)).toBeVisible();
  const exported = await page.request.get(`/api/admin/${E2E.cafe.slug}/export?format=csv`);
  expect(exported.status()).toBe(403);
  // Still there after the viewer's attempt.
  await page.reload();
  await expect(page.getByRole("article", { name: "Visitor" })).toContainText(QUESTION);
});

test("another tenant's conversation id answers 404", async ({ page }) => {
  await signIn(page, E2E.operator);
  const viaOwnTenant = await page.goto(`/admin/${E2E.cafe.slug}/conversations/${otherConversation}`);
  expect(viaOwnTenant?.status()).toBe(404);
  // And the other tenant's own admin path too: the operator is not a member there.
  const viaOtherTenant = await page.goto(`/admin/${E2E.other.slug}/conversations/${otherConversation}`);
  expect(viaOtherTenant?.status()).toBe(404);
  const exported = await page.request.get(`/api/admin/${E2E.other.slug}/export?format=json`);
  expect(exported.status()).toBe(404);
});

// Before the delete below: the pack table needs the conversation's tool run.
test("the Usage page shows the period's numbers; retention is saved under Data & retention", async ({
  page,
}) => {
  await signIn(page, E2E.operator);
  await page.goto(`/admin/${E2E.cafe.slug}/usage`);
  await expect(page.getByRole("heading", { level: 1, name: "Usage" })).toBeVisible();
  await page.getByRole("link", { name: "Last 7 days" }).click();
  await expect(page).toHaveURL(/days=7/);
  await expect(page.getByRole("link", { name: "Last 7 days" })).toHaveAttribute("aria-current", "page");
  // The per-pack table is visible; the daily tables are there for screen readers and on request.
  const packTable = page.getByRole("table", { name: "Tool calls per pack" });
  await expect(packTable.getByRole("row").filter({ hasText: "get_opening_status" })).toBeVisible();
  await page.getByRole("button", { name: "Show the numbers" }).first().click();
  await expect(page.getByRole("table", { name: "Conversations per day" })).toBeVisible();

  // Retention is a setting: no longer on the Usage page, which links to it.
  await expect(page.getByLabel("Keep conversations for (days)")).toHaveCount(0);
  await page.getByRole("main").getByRole("link", { name: "Data & retention" }).click();
  await expect(page).toHaveURL(new RegExp(`/admin/${E2E.cafe.slug}/settings$`));
  await page.getByLabel("Keep conversations for (days)").fill("0");
  await page.getByRole("button", { name: "Save", exact: true }).click();
  await expect(page.getByText("Keep conversations for at least 1 day.")).toBeVisible();
  // A value of this repetition (--repeat-each): saving what an earlier one stored changes nothing.
  const days = String(120 + test.info().repeatEachIndex);
  await page.getByLabel("Keep conversations for (days)").fill(days);
  await page.getByRole("button", { name: "Save", exact: true }).click();
  await expect(page.getByText(`Saved: conversations are now kept for ${days} days.`)).toBeVisible();
  await page.reload();
  await expect(page.getByLabel("Keep conversations for (days)")).toHaveValue(days);
});

test("the Insights pages have no serious accessibility faults, in the light and the dark theme", async ({
  browser,
}) => {
  // Both themes at once, each in a browser context of its own.
  const sweep = async (colorScheme: "light" | "dark") => {
    const context = await browser.newContext({ colorScheme });
    const page = await context.newPage();
    await signIn(page, E2E.operator);
    for (const path of ["conversations", `conversations/${cafeConversation}`, "usage?days=7"]) {
      await page.goto(`/admin/${E2E.cafe.slug}/${path}`);
      // Open every trace (and the delete question) so their contents are checked too.
      await page.locator("main details").evaluateAll((all) => {
        for (const d of all) (d as HTMLDetailsElement).open = true;
      });
      const result = await new AxeBuilder({ page }).include("main").analyze();
      const bad = result.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
      expect(
        bad.map((v) => ({ page: path, colorScheme, id: v.id, nodes: v.nodes.map((n) => n.target) })),
      ).toEqual([]);
    }
    await context.close();
  };
  await Promise.all([sweep("light"), sweep("dark")]);
});

test("an admin exports the range as CSV and deletes the conversation after confirming", async ({ page }) => {
  await signIn(page, E2E.operator);
  // From yesterday (UTC): a conversation of this run may be from before midnight when the export runs after.
  const today = new Date().toISOString().slice(0, 10);
  const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
  const csv = await page.request.get(
    `/api/admin/${E2E.cafe.slug}/export?format=csv&from=${yesterday}&to=${today}`,
  );
  expect(csv.status()).toBe(200);
  expect(csv.headers()["content-disposition"]).toBe(
    `attachment; filename="michi-${E2E.cafe.slug}-conversations-${yesterday}-to-${today}.csv"`,
  );
  const text = await csv.text();
  expect(text).toContain(cafeConversation);
  expect(text).toContain("get_opening_status:ok:");
  expect(text).not.toContain(otherConversation);

  await page.goto(`/admin/${E2E.cafe.slug}/conversations/${cafeConversation}`);
  await page.locator("#delete summary").click();
  await expect(page.getByText("Delete this conversation permanently?")).toBeVisible();
  await page.getByRole("button", { name: "Yes, delete it" }).click();
  await expect(page).toHaveURL(new RegExp(`/admin/${E2E.cafe.slug}/conversations\\?deleted=1$`));
  await expect(page.getByText("The conversation was deleted.")).toBeVisible();
  await expect(page.locator(`a[href$="/conversations/${cafeConversation}"]`)).toHaveCount(0);
  const gone = await page.goto(`/admin/${E2E.cafe.slug}/conversations/${cafeConversation}`);
  expect(gone?.status()).toBe(404);
  await page.goto(`/admin/${E2E.cafe.slug}/audit`);
  // Named by a short reference, not a whole id.
  await expect(page.getByRole("row").filter({ hasText: "Conversation deleted" }).first()).toContainText(
    `#${cafeConversation.slice(0, 8)}`,
  );
});
