import { expect, test } from "@playwright/test";
import { E2E } from "../support/e2e-env";
import { hostPageAt } from "../support/host-page";
import { CAFE, model, OPEN_ANSWER, OPEN_NOW, panelFrame, panelOf, recordTurn } from "./widget-helpers";

// The world's host page, a customer's site that the café tenant allows.
const host = hostPageAt(E2E.hostPageOrigin);
test.beforeEach(async () => {
  await model.reset();
  await model.setRules([OPEN_NOW]);
});

test("a visitor on another site asks if the shop is open: chip, streamed answer, stored turn; reload keeps it", async ({
  page,
}) => {
  await page.goto(host.url({ key: CAFE }));
  const launcher = page.getByRole("button", { name: "Open chat" });
  // The panel is not loaded until the visitor opens it.
  await expect(launcher).toBeVisible();
  await expect(page.locator("iframe")).toHaveCount(0);
  await launcher.click();
  await expect(page.locator("#events")).toContainText(`michi:open ${CAFE}`);

  const panel = panelOf(page);
  await expect(panel.getByText("Welcome to E2E Café!")).toBeVisible();
  const turn = await recordTurn(await panelFrame(page));
  const input = panel.getByRole("textbox", { name: "Your message" });
  await input.fill("are you open now?");
  await input.press("Enter");

  await expect(panel.locator(".chip")).toContainText("Checking if we're open");
  await expect(panel.locator(".msg.bot .bubble").last()).toHaveText(OPEN_ANSWER);
  await expect(panel.locator(".chip")).toHaveClass(/\bdone\b/);

  const order = await turn();
  const firstText = order.findIndex((s) => s.startsWith("text:"));
  expect(order.indexOf("typing")).toBeGreaterThanOrEqual(0);
  expect(order.indexOf("typing")).toBeLessThan(firstText);
  // The chip shows before any answer text. (When the pack answers within one frame, its start and done
  // states reach the screen together, so the running state itself is not always observable.)
  const firstChip = order.findIndex((x) => x.startsWith("chip:"));
  expect(firstChip).toBeGreaterThanOrEqual(0);
  expect(firstChip).toBeLessThan(firstText);
  // Streamed: the answer grew in several steps rather than arriving whole.
  expect(order.filter((s) => s.startsWith("text:")).length).toBeGreaterThan(3);

  // The model got the pack's projected result (not the fixture's other fields) and wrote from it.
  const sent = await model.requests();
  const toolMsg = sent.at(-1)?.body.messages.find((m) => m.role === "tool");
  expect(JSON.parse(String(toolMsg?.content))).toEqual({ open: true, nextChange: "18:00" });

  // Reload: the conversation comes back from the server and continues in the same conversation.
  await page.reload();
  await page.getByRole("button", { name: "Open chat" }).click();
  const again = panelOf(page);
  await expect(again.locator(".msg.me")).toHaveText(["You: are you open now?"]);
  await expect(again.locator(".msg.bot .bubble").last()).toHaveText(OPEN_ANSWER);
  await again.getByRole("textbox", { name: "Your message" }).fill("thank you");
  await again.getByRole("textbox", { name: "Your message" }).press("Enter");
  await expect(again.locator(".msg.bot .bubble").last()).toHaveText("You said: thank you");
  const history = (await model.requests()).at(-1)?.body.messages.map((m) => m.content);
  expect(history).toContain("are you open now?");
  expect(history).toContain(OPEN_ANSWER);

  // "New conversation" asks first, then starts afresh.
  await again.getByRole("button", { name: "New conversation" }).click();
  await again.getByRole("alertdialog").getByRole("button", { name: "Yes, start over" }).click();
  await expect(again.locator(".msg.me")).toHaveCount(0);
  await expect(again.getByRole("button", { name: "Are you open now?" })).toBeVisible();
});

test("the stored turn holds its tool run (admin export)", async ({ page }) => {
  await page.goto(host.url({ key: CAFE }));
  await page.getByRole("button", { name: "Open chat" }).click();
  const panel = panelOf(page);
  await panel.getByRole("button", { name: "Are you open now?" }).click();
  await expect(panel.locator(".msg.bot .bubble").last()).toHaveText(OPEN_ANSWER);

  await page.goto("/signin");
  await page.getByLabel("E-mail").fill(E2E.operator.email);
  await page.getByLabel("Password").fill(E2E.operator.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(/\/admin\//);
  const res = await page.request.get(`/api/admin/${E2E.cafe.slug}/export?format=json`);
  expect(res.status()).toBe(200);
  const text = await res.text();
  expect(text).toContain("get_opening_status");
  expect(text).toContain(OPEN_ANSWER);
});

test("an error shows the message and a Retry that answers the stored question, not a copy of it", async ({
  page,
}) => {
  await model.setRules([{ match: "flaky", steps: [{ type: "http_error", status: 400 }] }]);
  await page.goto(host.url({ key: CAFE }));
  await page.getByRole("button", { name: "Open chat" }).click();
  const panel = panelOf(page);
  await panel.getByRole("textbox", { name: "Your message" }).fill("flaky question");
  await panel.getByRole("textbox", { name: "Your message" }).press("Enter");
  const retry = panel.getByRole("button", { name: "Retry" });
  await expect(retry).toBeVisible();
  await expect(panel.locator(".err")).not.toHaveText("Retry");
  await model.setRules([{ match: "flaky", steps: [{ type: "text", text: "Fine now." }] }]);
  await retry.click();
  await expect(panel.locator(".msg.bot .bubble").last()).toHaveText("Fine now.");
  await expect(panel.getByRole("button", { name: "Retry" })).toHaveCount(0);
  // The retry answered the stored question: the model saw it once, and the stored conversation holds it once.
  const asked = (await model.requests()).at(-1)?.body.messages.filter((m) => m.role === "user");
  expect(asked?.map((m) => m.content)).toEqual(["flaky question"]);
  await page.reload();
  await page.getByRole("button", { name: "Open chat" }).click();
  await expect(panelOf(page).locator(".msg.bot .bubble").last()).toHaveText("Fine now.");
  await expect(panelOf(page).locator(".msg.me")).toHaveText(["You: flaky question"]);
});

test("a reload while the answer still streams brings the conversation back, and it goes on", async ({
  page,
}) => {
  // 300 words 200 ms apart outlast the test's own timeout, so the reload always lands mid-answer, however
  // busy the machine: the panel can only know the conversation from the stream's first event.
  const words = Array.from({ length: 300 }, (_, i) => `word${i + 1}`).join(" ");
  await model.setRules([
    { match: "tell me slowly", steps: [{ type: "slow_text", text: words, chunkDelayMs: 200 }] },
  ]);
  await page.goto(host.url({ key: CAFE }));
  await page.getByRole("button", { name: "Open chat" }).click();
  const panel = panelOf(page);
  await panel.getByRole("textbox", { name: "Your message" }).fill("tell me slowly");
  await panel.getByRole("textbox", { name: "Your message" }).press("Enter");
  await expect(panel.locator(".msg.bot .bubble").last()).toContainText("word1");

  await page.reload();
  await page.getByRole("button", { name: "Open chat" }).click();
  const again = panelOf(page);
  await expect(again.locator(".msg.me")).toHaveText(["You: tell me slowly"]);
  await again.getByRole("textbox", { name: "Your message" }).fill("thank you");
  await again.getByRole("textbox", { name: "Your message" }).press("Enter");
  await expect(again.locator(".msg.bot .bubble").last()).toHaveText("You said: thank you");
  const history = (await model.requests()).at(-1)?.body.messages.map((m) => m.content);
  expect(history).toContain("tell me slowly");

  // The answer cut short by the reload was stored as far as it went, and comes back with the rest.
  await page.reload();
  await page.getByRole("button", { name: "Open chat" }).click();
  const third = panelOf(page);
  await expect(third.locator(".msg.me")).toHaveText(["You: tell me slowly", "You: thank you"]);
  // The fake model streams a few characters at a time, so the stored part ends anywhere after "word1".
  await expect(third.locator(".msg.bot .bubble").filter({ hasText: /^word1/ })).toHaveCount(1);
});

const XSS = [
  "Start of corpus.",
  "<script>window.__pwned = 1</script>",
  '<img src="https://evil.example/x.png" onerror="window.__pwned = 2">',
  '<svg onload="window.__pwned = 3"></svg>',
  '<iframe src="https://evil.example/frame"></iframe>',
  "![pixel](https://evil.example/pixel.png)",
  "[click me](javascript:window.__pwned=4)",
  '<a href="javascript:window.__pwned=5">also me</a>',
  '<style>body{background:url("https://evil.example/bg.png")}</style>',
  '<link rel="stylesheet" href="https://evil.example/x.css">',
  "[fine link](https://docs.example/page)",
  "END-OF-CORPUS",
].join("\n\n");

test("the XSS corpus streamed through the model: nothing executes, nothing loads from a remote host", async ({
  page,
}) => {
  await model.setRules([{ match: "corpus", steps: [{ type: "text", text: XSS, chunkSize: 7 }] }]);
  const requested: string[] = [];
  const dialogs: string[] = [];
  page.on("request", (r) => requested.push(r.url()));
  page.on("dialog", (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  await page.goto(host.url({ key: CAFE }));
  await page.getByRole("button", { name: "Open chat" }).click();
  const panel = panelOf(page);
  await panel.getByRole("textbox", { name: "Your message" }).fill("send the corpus");
  await panel.getByRole("textbox", { name: "Your message" }).press("Enter");
  const answer = panel.locator(".msg.bot .bubble").last();
  await expect(answer).toContainText("END-OF-CORPUS");
  await expect(answer).toContainText('<img src="https://evil.example/x.png"'); // shown as text

  const frame = await panelFrame(page);
  const inside = await frame.evaluate(() => ({
    pwned: (window as unknown as { __pwned?: number }).__pwned ?? null,
    active: document.querySelectorAll(
      ".md script, .md img, .md svg, .md iframe, .md style, .md link, .md object, .md [onerror], .md [onload]",
    ).length,
    links: [...document.querySelectorAll(".md a")].map((a) => [
      a.getAttribute("href"),
      a.getAttribute("rel"),
      a.getAttribute("target"),
    ]),
  }));
  expect(inside.pwned).toBeNull();
  expect(inside.active).toBe(0);
  // Only https addresses became links (bare ones included), each opening a new tab without referrer; the
  // javascript: targets stayed plain text.
  expect(inside.links).toContainEqual([
    "https://docs.example/page",
    "noopener noreferrer nofollow",
    "_blank",
  ]);
  for (const [href, rel, target] of inside.links) {
    expect(href).toMatch(/^https:\/\//);
    expect([rel, target]).toEqual(["noopener noreferrer nofollow", "_blank"]);
  }
  await expect(answer).toContainText("click me");
  expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned ?? null)).toBeNull();
  expect(dialogs).toEqual([]);
  const origins = new Set(requested.map((u) => new URL(u).origin));
  expect([...origins].sort()).toEqual([E2E.appUrl, host.origin].sort());
});

test("Japanese strings and chip when data-michi-lang is ja", async ({ page }) => {
  await page.goto(host.url({ key: CAFE, lang: "ja" }));
  await page.getByRole("button", { name: "チャットを開く" }).click();
  const panel = panelOf(page);
  const input = panel.getByRole("textbox", { name: "メッセージ" });
  await expect(input).toHaveAttribute("placeholder", "メッセージを入力…");
  await expect(panel.getByRole("button", { name: "新しい会話" })).toBeVisible();
  await expect(panel.locator("html")).toHaveAttribute("lang", "ja");
  await input.fill("are you open now?");
  await input.press("Enter");
  await expect(panel.locator(".chip")).toContainText("営業中か確認しています");
  await expect(panel.locator(".msg.bot .bubble").last()).toHaveText(OPEN_ANSWER);
  await expect(page.getByRole("button", { name: "チャットを閉じる" })).toBeVisible();
});
