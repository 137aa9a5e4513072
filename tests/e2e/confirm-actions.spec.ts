import { type Browser, expect, type FrameLocator, type Page, request, test } from "@playwright/test";
import { Webhook } from "standardwebhooks";
import { E2E } from "../support/e2e-env";
import { ORDERS_SEEN } from "../support/e2e-fixture-routes";
import { hostPageAt } from "../support/host-page";
import { model, panelOf } from "./widget-helpers";

// Issue 41 on the production build: a visitor asks for a cake, the scripted model calls post_json, the
// visitor sees a card with the exact values and confirms; the café's endpoint (the fixture site) receives one
// signed request with the idempotency key. A second visitor cancels and nothing is sent. A reload between the
// card and the tap still lets the visitor confirm, once.

test.describe.configure({ mode: "serial" });

const host = hostPageAt(E2E.hostPageOrigin);
const KEY = E2E.actions.widgetKey;
type Seen = { headers: Record<string, string>; body: string };

const order = (cake: string) => ({ cake, pickupDate: "2025-06-07", candles: true });

test.beforeEach(async () => {
  await model.reset();
  await model.setRules(
    ["Chocolate", "Lemon", "Carrot"].map((cake) => ({
      match: `order a ${cake} cake`,
      steps: [
        { type: "tool_calls", calls: [{ name: "post_json", arguments: JSON.stringify(order(cake)) }] },
        { type: "text", text: "Update: {{tool.reference}}{{tool.confirmation}}" },
      ],
    })),
  );
});

/** What the café's order endpoint received so far. */
async function ordersSeen(): Promise<Seen[]> {
  const api = await request.newContext({ ignoreHTTPSErrors: true });
  const res = await api.get(`${E2E.fixtureOrigin}${ORDERS_SEEN}`);
  const seen = (await res.json()) as Seen[];
  await api.dispose();
  return seen;
}

async function openChat(browser: Browser): Promise<{ page: Page; panel: FrameLocator }> {
  const page = await (await browser.newContext()).newPage();
  await page.goto(host.url({ key: KEY }));
  await page.getByRole("button", { name: "Open chat" }).click();
  return { page, panel: panelOf(page, KEY) };
}

async function ask(panel: FrameLocator, text: string) {
  const input = panel.getByRole("textbox", { name: "Your message" });
  await input.fill(text);
  await input.press("Enter");
}

/** The card with its title and exactly these labelled values. */
async function expectCard(panel: FrameLocator, cake: string) {
  const card = panel.getByRole("region", { name: "Order this cake?" });
  await expect(card).toBeVisible();
  await expect(card.locator("dt")).toHaveText(["Cake", "Pick-up date", "Candles"]);
  await expect(card.locator("dd")).toHaveText([cake, "2025-06-07", "Yes"]);
  // The card takes focus, so a keyboard user is on it and Tab reaches Confirm.
  await expect(card).toBeFocused();
  return card;
}

test("a visitor confirms: one signed request with the idempotency key reaches the business", async ({
  browser,
}) => {
  const before = (await ordersSeen()).length;
  const { panel } = await openChat(browser);
  await ask(panel, "I'd like to order a Chocolate cake");
  const card = await expectCard(panel, "Chocolate");
  expect((await ordersSeen()).length).toBe(before);

  await card.getByRole("button", { name: "Confirm" }).click();
  await expect(panel.locator(".msg.bot .bubble").last()).toHaveText(/^Update: C-\d+$/);
  await expect(panel.getByRole("region", { name: "Order this cake?" })).toHaveCount(0);
  const seen = await ordersSeen();
  expect(seen.length).toBe(before + 1);
  const sent = seen.at(-1)!;
  expect(JSON.parse(sent.body)).toEqual(order("Chocolate"));
  expect(sent.headers["idempotency-key"]).toMatch(/^[0-9a-f-]{36}$/);
  expect(sent.headers["webhook-id"]).toBe(sent.headers["idempotency-key"]);
  // What the café's endpoint would do: verify with the Standard Webhooks library and its copied secret.
  expect(
    new Webhook(E2E.actionSecret).verify(sent.body, {
      "webhook-id": sent.headers["webhook-id"]!,
      "webhook-timestamp": sent.headers["webhook-timestamp"]!,
      "webhook-signature": sent.headers["webhook-signature"]!,
    }),
  ).toEqual(order("Chocolate"));
});

test("a second visitor cancels: nothing is sent and the bot says so", async ({ browser }) => {
  const before = (await ordersSeen()).length;
  const { panel } = await openChat(browser);
  await ask(panel, "please order a Lemon cake");
  const card = await expectCard(panel, "Lemon");
  await card.getByRole("button", { name: "Cancel" }).click();
  await expect(panel.locator(".msg.bot .bubble").last()).toHaveText("Update: declined");
  expect((await ordersSeen()).length).toBe(before);
});

test("a reload between the card and the tap still lets the visitor confirm, once", async ({ browser }) => {
  const before = (await ordersSeen()).length;
  const { page, panel } = await openChat(browser);
  await ask(panel, "can you order a Carrot cake");
  await expectCard(panel, "Carrot");

  await page.reload();
  await page.getByRole("button", { name: "Open chat" }).click();
  const again = panelOf(page, KEY);
  const card = await expectCard(again, "Carrot");
  await card.getByRole("button", { name: "Confirm" }).click();
  await expect(again.locator(".msg.bot .bubble").last()).toHaveText(/^Update: C-\d+$/);
  expect((await ordersSeen()).length).toBe(before + 1);

  // Another reload: the card is gone for good, and nothing more was sent.
  await page.reload();
  await page.getByRole("button", { name: "Open chat" }).click();
  await expect(panelOf(page, KEY).locator(".msg.bot .bubble").last()).toHaveText(/^Update: C-\d+$/);
  await expect(panelOf(page, KEY).getByRole("region", { name: "Order this cake?" })).toHaveCount(0);
  expect((await ordersSeen()).length).toBe(before + 1);
});
