import AxeBuilder from "@axe-core/playwright";
import { expect, type Page, test } from "@playwright/test";
import { rawBody, signature, textMessage } from "../fixtures/channels/whatsapp/webhooks";
import { E2E } from "../support/e2e-env";
import { createBusiness, runName, signedInContext } from "./admin-support";
import { model } from "./widget-helpers";

// The Channels page on the production build (issue 29): an owner connects WhatsApp against the world's fake
// Graph API (tests/support/e2e-channels.ts), reads "Check connection" in words and the callback URL to paste
// at Meta; a delivery signed as Meta signs it (X-Hub-Signature-256: HMAC-SHA256 of the raw body under the
// app secret) is answered through the fake model and sent back through the fake Graph API; the conversation
// is listed under Conversations for its channel, and the page shows the last message in and reply out. A
// delivery with a wrong signature is refused with 401 and leaves no trace. Secrets typed into the forms never
// come back in the page. Each run has a business and a customer number of its own (--repeat-each).

test.describe.configure({ mode: "serial" });

const APP_SECRET = "e2e-app-secret-9f3c1d7a5b";
const VERIFY_TOKEN = "e2e-verify-token-c4e8a2";
const ANSWER = "Hello from the shop's assistant on WhatsApp.";
const QUESTION = "channels e2e: do you deliver on Sundays?";
const FORGED = "channels e2e: a forged delivery";
/** A token the fake Graph API does not know, answered with Meta's code 190 as an expired one is. */
const STALE_TOKEN = "EAAG-e2e-stale-token-7d1f";

let shop = { slug: "", widgetKey: "" };
let customer = "";
let callbackUrl = "";

type GraphView = {
  sent: { id: string; to: string; type: string; body: Record<string, unknown> }[];
  requests: { method: string; path: string }[];
};
const graphView = async (): Promise<GraphView> => (await fetch(`${E2E.channels.viewUrl}/graph`)).json();
const telegramView = async (): Promise<{ requests: { apiMethod: string }[] }> =>
  (await fetch(`${E2E.channels.viewUrl}/telegram`)).json();
/** The text of a message the fake Graph API accepted: a plain text, or the body of reply buttons. */
const textOf = (s: GraphView["sent"][number]) =>
  (s.body.text as { body?: string } | undefined)?.body ??
  (s.body.interactive as { body?: { text?: string } } | undefined)?.body?.text;

/** Posts a body to the callback URL the way Meta does: the exact bytes that were signed. */
async function deliver(json: unknown, secret: string): Promise<Response> {
  const raw = rawBody(json);
  return fetch(callbackUrl, {
    method: "POST",
    headers: { "content-type": "application/json", "x-hub-signature-256": await signature(raw, secret) },
    body: new Uint8Array(raw),
  });
}

/** What the page's HTML holds, for the write-only checks: none of the typed secrets may be in it. */
async function expectNoSecrets(page: Page) {
  const html = await page.content();
  const typed = [E2E.channels.accessToken, STALE_TOKEN, APP_SECRET, VERIFY_TOKEN, E2E.channels.telegramToken];
  for (const secret of typed) expect(html, "a secret came back in the page").not.toContain(secret);
}

test.beforeAll(async ({ browser }, testInfo) => {
  const operator = await signedInContext(browser, E2E.operator);
  shop = await createBusiness(operator, runName("Channels shop", testInfo));
  await operator.context().close();
  // A number of this run's own in the fictional 555 range, so its sends are told apart from other runs'.
  customer = `1555${String(Date.now() % 10_000_000).padStart(7, "0")}`;
});

test.beforeEach(async () => {
  await model.reset();
  await model.setRules([{ match: "channels e2e", steps: [{ type: "text", text: ANSWER }] }]);
});

test("an owner connects WhatsApp, checks it, and a signed message is answered and listed under Conversations", async ({
  browser,
}) => {
  test.setTimeout(90_000);
  const owner = await signedInContext(browser, E2E.operator);
  await owner.goto(`/admin/${shop.slug}/channels`);
  const card = owner.locator("#whatsapp");
  await expect(card).toContainText("Not connected.");
  const fillSecrets = async () => {
    await card.getByLabel("Access token").fill(E2E.channels.accessToken);
    await card.getByLabel("App secret").fill(APP_SECRET);
    await card.getByLabel("Verify token").fill(VERIFY_TOKEN);
  };
  // A mistake sends the form back with what was typed, but never the secrets.
  await card.getByLabel("Phone number id").fill("+1 555 0101");
  await fillSecrets();
  await card.getByRole("button", { name: "Save WhatsApp" }).click();
  await expect(card.getByText("The phone number id is the number Meta shows under API Setup")).toBeVisible();
  await expect(card.getByLabel("Phone number id")).toHaveValue("+1 555 0101");
  await expect(card.getByLabel("Access token")).toHaveValue("");
  await expectNoSecrets(owner);

  await card.getByLabel("Phone number id").fill(E2E.channels.phoneNumberId);
  await fillSecrets();
  await card.getByRole("button", { name: "Save WhatsApp" }).click();
  // Saving asks Meta (the fake Graph API) about the token, as Check connection does, and says what it found.
  await expect(
    card.getByText("WhatsApp saved. Meta confirmed the access token for +1 555-010-1234."),
  ).toBeVisible();
  await expect(card).toContainText("Connected.");

  // The callback URL to copy: on this platform, with the connection's random key.
  const link = card.getByLabel("Callback URL to paste at Meta (Webhooks)");
  callbackUrl = await link.inputValue();
  expect(callbackUrl).toMatch(new RegExp(`^${E2E.appUrl}/api/channels/whatsapp/[\\w-]{20,}$`));
  // This platform is served over http, which Meta refuses as a callback URL: the page says so, and whose task it is.
  await expect(card.getByRole("note").filter({ hasText: "only delivers to https addresses" })).toContainText(
    "Ask your platform's operator",
  );
  await expect(card).toContainText("Last message in: none yet · Last reply out: none yet");
  // Write-only: the secret fields are empty again and say a value is stored; none is in the page.
  for (const label of ["Access token", "App secret", "Verify token"]) {
    await expect(card.getByLabel(label)).toHaveValue("");
    await expect(card.getByLabel(label)).toHaveAccessibleDescription("Saved. Leave empty to keep it.");
  }
  await expectNoSecrets(owner);

  // Check connection asks the (fake) Graph API with the stored token, and says what it found in words.
  await card.getByRole("button", { name: "Check connection" }).click();
  await expect(card.getByText("The connection works.")).toBeVisible();
  const report = card.locator("pre");
  await expect(report).toContainText("The access token works for +1 555-010-1234 (Michi Test Shop).");
  await expect(report).toContainText("No message from Meta has arrived yet.");
  const checked = await graphView();
  expect(checked.requests).toContainEqual({
    method: "GET",
    path: expect.stringMatching(new RegExp(`/${E2E.channels.phoneNumberId}$`)),
  });
  // A token Meta does not accept is not saved (it used to be, and the page said "Connected."): only that field
  // is typed, the refusal names the problem, and the stored token keeps working.
  const save = card.getByRole("button", { name: "Save WhatsApp" });
  const token = card.getByLabel("Access token");
  await token.fill(STALE_TOKEN);
  await save.click();
  await expect(
    card.getByText("Nothing was saved: The access token has expired or was revoked"),
  ).toBeVisible();
  await expect(token).toHaveValue("");
  await card.getByRole("button", { name: "Check connection" }).click();
  await expect(card.getByText("The connection works.")).toBeVisible();
  await expectNoSecrets(owner);

  // Meta's verification handshake at the callback URL: no signature, the verify token, the challenge echoed.
  const hub = new URLSearchParams({
    "hub.mode": "subscribe",
    "hub.verify_token": VERIFY_TOKEN,
    "hub.challenge": "1158201444",
  });
  const handshake = await fetch(`${callbackUrl}?${hub}`);
  expect(handshake.status).toBe(200);
  expect(await handshake.text()).toBe("1158201444");

  const timestamp = Math.floor(Date.now() / 1000);
  const at = { from: customer, timestamp, phoneNumberId: E2E.channels.phoneNumberId };
  // Signed with another secret than the app's: refused before it is read, nothing stored, nothing answered.
  const forged = textMessage(FORGED, { ...at, id: `wamid.E2EFORGED${customer}${timestamp}` });
  expect((await deliver(forged, "not-the-app-secret")).status).toBe(401);

  await owner.reload();
  await expect(card).toContainText("Last message in: none yet");

  const genuine = textMessage(QUESTION, { ...at, id: `wamid.E2E${customer}${timestamp}` });
  const res = await deliver(genuine, APP_SECRET);
  expect(res.status).toBe(200);
  // Answered through the fake model and sent back to the customer through the fake Graph API.
  await expect
    .poll(async () => (await graphView()).sent.filter((s) => s.to === customer).map(textOf), {
      timeout: 30_000,
    })
    .toEqual([ANSWER]);
  const asked = await model.requests();
  expect(
    asked.some((r) => r.body.messages.some((m) => m.role === "user" && String(m.content).includes(QUESTION))),
  ).toBe(true);
  expect(asked.some((r) => JSON.stringify(r.body.messages).includes(FORGED))).toBe(false);

  // The page shows when the last message came in and the last reply went out.
  await expect(async () => {
    await owner.reload();
    await expect(card).toContainText("Last message in:", { timeout: 1_000 });
    await expect(card).not.toContainText("none yet", { timeout: 1_000 });
  }).toPass();
  await expect(card.locator("p").filter({ hasText: "Last message in:" }).locator("time")).toHaveCount(2);
  await card.getByRole("button", { name: "Check connection" }).click();
  await expect(report).toContainText("Meta last delivered a message at");
  await expectNoSecrets(owner);

  // Conversations, filtered by channel: the WhatsApp conversation is there (and not among the site's chats);
  // the forged delivery is nowhere.
  await owner.goto(`/admin/${shop.slug}/conversations?channel=whatsapp`);
  await expect(owner.getByLabel("Channel", { exact: true })).toHaveValue("whatsapp");
  const rows = owner.locator("main tbody tr");
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toContainText(QUESTION);
  await expect(owner.locator("main")).not.toContainText(FORGED);
  await owner.goto(`/admin/${shop.slug}/conversations?channel=web`);
  await expect(owner.locator("main")).not.toContainText(QUESTION);
  await owner.goto(`/admin/${shop.slug}/conversations?channel=whatsapp`);
  await rows.first().getByRole("link").click();
  await expect(owner.locator("main")).toContainText(QUESTION);
  await expect(owner.locator("main")).toContainText(ANSWER);
  await owner.context().close();
});

test("a delivery with a bad signature is refused with 401 and shows nowhere", async ({ browser }) => {
  const owner = await signedInContext(browser, E2E.operator);
  const before = (await graphView()).sent.length;
  const timestamp = Math.floor(Date.now() / 1000);
  const body = textMessage(`${FORGED} (second)`, {
    id: `wamid.E2EBAD${customer}${timestamp}`,
    from: customer,
    timestamp,
    phoneNumberId: E2E.channels.phoneNumberId,
  });
  expect((await deliver(body, "not-the-app-secret")).status).toBe(401);
  // No signature at all is refused the same way.
  const raw = rawBody(body);
  const unsigned = await fetch(callbackUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: new Uint8Array(raw),
  });
  expect(unsigned.status).toBe(401);

  await owner.goto(`/admin/${shop.slug}/conversations?channel=whatsapp`);
  await expect(owner.locator("main tbody tr")).toHaveCount(1);
  await expect(owner.locator("main")).not.toContainText(FORGED);
  // Nothing was sent because of them.
  expect((await graphView()).sent.length).toBe(before);
  await owner.context().close();
});

test("Telegram on a platform without https says why it cannot connect, and keeps the token out of the page", async ({
  browser,
}) => {
  const owner = await signedInContext(browser, E2E.operator);
  await owner.goto(`/admin/${shop.slug}/channels`);
  const card = owner.locator("#telegram");
  await expect(card).toContainText("Not connected.");
  const calls = (await telegramView()).requests.length;
  await card.getByLabel("Bot token").fill(E2E.channels.telegramToken);
  await card.getByRole("button", { name: "Connect Telegram" }).click();
  // The e2e platform is http://localhost: Telegram would refuse the webhook, so nothing is tried or saved.
  await expect(
    card.getByText(
      "Telegram only delivers to an https address, and this installation's address is not https. Ask your platform's operator to serve it over https (they set its public address).",
    ),
  ).toBeVisible();
  await expect(card.getByLabel("Bot token")).toHaveValue("");
  expect((await telegramView()).requests.length).toBe(calls);
  await expectNoSecrets(owner);
  await owner.reload();
  await expect(card).toContainText("Not connected.");
  await owner.context().close();
});

test("axe finds no serious or critical fault on the connected Channels page, light and dark", async ({
  browser,
}) => {
  for (const colorScheme of ["light", "dark"] as const) {
    const owner = await signedInContext(browser, E2E.operator, { colorScheme });
    await owner.goto(`/admin/${shop.slug}/channels`);
    await expect(owner.locator("#whatsapp")).toContainText("Connected.");
    const result = await new AxeBuilder({ page: owner }).analyze();
    const faults = result.violations
      .filter((v) => v.impact === "serious" || v.impact === "critical")
      .map((v) => ({ id: v.id, nodes: v.nodes.map((n) => n.target) }));
    expect(faults, colorScheme).toEqual([]);
    await owner.context().close();
  }
});
