import { expect, type Page, test } from "@playwright/test";
import { DEFAULT_CONSENTS } from "@/shared/consent";
import { HANDOFF_STRINGS } from "@/shared/handoff-words";
import { STRINGS } from "@/widget/i18n";
import { E2E } from "../support/e2e-env";
import { hostPageAt } from "../support/host-page";
import { signIn } from "./admin-support";
import { CAFE, model, OPEN_ANSWER, OPEN_NOW, panelFrame, panelOf } from "./widget-helpers";

// The visitor's side of issue 14, each item on the world's host page (another origin than the platform).

const host = hostPageAt(E2E.hostPageOrigin);
const VISITOR = E2E.visitor.widgetKey;
test.beforeEach(async () => {
  await model.reset();
  await model.setRules([OPEN_NOW]);
});

async function openAndAsk(page: Page, params: Record<string, string>, question: string, key = CAFE) {
  await page.goto(host.url({ key, ...params }));
  const lang = (params.lang ?? "en") as keyof typeof STRINGS;
  await page.getByRole("button", { name: STRINGS[lang].open }).click();
  const panel = panelOf(page, key);
  const input = panel.getByRole("textbox", { name: STRINGS[lang].messageLabel });
  await input.fill(question);
  await input.press("Enter");
  return panel;
}

test("1. server errors read in the conversation's language: busy and interrupted from the model, rate limit and budget refusals", async ({
  page,
}) => {
  const es = STRINGS.es;
  await model.setRules([
    { match: "ocupado", steps: [{ type: "http_error", status: 429, headers: { "retry-after": "60" } }] },
    { match: "cortado", steps: [{ type: "cut", text: "Hola, " }] },
  ]);
  const panel = await openAndAsk(page, { lang: "es" }, "¿estás ocupado?");
  await expect(panel.locator(".err").last()).toContainText(es.busy);
  await expect(panel.getByRole("button", { name: "Reintentar" })).toBeVisible();

  await panel.getByRole("textbox", { name: es.messageLabel }).fill("respuesta cortado");
  await panel.getByRole("textbox", { name: es.messageLabel }).press("Enter");
  await expect(panel.locator(".err").last()).toContainText(es.interrupted);

  // Refusals before any stream: the server's JSON carries English words and a code; the panel shows its own.
  for (const [code, words] of [
    ["rate_limited", es.rateLimited],
    ["budget_exhausted", es.budget],
  ] as const) {
    await page.route(`${E2E.appUrl}/api/widget/${CAFE}/chat`, (route) =>
      route.fulfill({
        status: 429,
        json: { error: { code, message: "English words the visitor must not see." } },
      }),
    );
    await panel.getByRole("textbox", { name: es.messageLabel }).fill(`pregunta ${code}`);
    await panel.getByRole("textbox", { name: es.messageLabel }).press("Enter");
    await expect(panel.locator(".err").last()).toContainText(words);
    await page.unroute(`${E2E.appUrl}/api/widget/${CAFE}/chat`);
  }
  await expect(panel.locator(".panel")).not.toContainText("English words");
  await expect(panel.locator(".panel")).not.toContainText(STRINGS.en.busy);
});

test("2. launcher settings revalidate by ETag within a minute; a suspended business shows no launcher at all", async ({
  page,
  request,
  browser,
}) => {
  const res = await request.get(`/w/${VISITOR}/config`, { headers: { origin: host.origin } });
  const etag = res.headers().etag;
  expect(etag).toBeTruthy();
  const ages = [...(res.headers()["cache-control"] ?? "").matchAll(/=(\d+)/g)].map((m) => Number(m[1]));
  expect(ages.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(60);
  const again = await request.get(`/w/${VISITOR}/config`, {
    headers: { origin: host.origin, "if-none-match": etag! },
  });
  expect(again.status()).toBe(304);

  await signIn(page, E2E.operator);
  await page.goto("/admin/operator");
  await page.getByRole("row").filter({ hasText: E2E.visitor.slug }).getByRole("link").click();
  await page.getByRole("button", { name: "Suspend" }).click();
  await expect(page.getByRole("button", { name: "Resume" })).toBeVisible();
  try {
    // A visitor arriving now (a fresh browser, nothing cached) gets no launcher, not a blank panel.
    const visitor = await browser.newContext();
    const vpage = await visitor.newPage();
    await vpage.goto(host.url({ key: VISITOR }));
    await expect(vpage.locator("michi-chat")).toHaveCount(0);
    await expect(vpage.getByRole("button", { name: "Open chat" })).toHaveCount(0);
    await visitor.close();
  } finally {
    await page.getByRole("button", { name: "Resume" }).click();
    await expect(page.getByRole("button", { name: "Suspend" })).toBeVisible();
  }
});

test("4. data-michi-offset and michi('offset', px) lift the launcher and the panel", async ({ page }) => {
  await page.goto(host.url({ key: CAFE, offset: "100" }));
  const launcher = page.getByRole("button", { name: "Open chat" });
  await expect(launcher).toBeVisible();
  const vp = page.viewportSize()!;
  let box = (await launcher.boundingBox())!;
  expect(Math.round(box.y + box.height)).toBe(vp.height - 120);
  await page.evaluate(() => (window as unknown as { michi(c: string, v: number): void }).michi("offset", 40));
  await expect
    .poll(async () => {
      box = (await launcher.boundingBox())!;
      return Math.round(box.y + box.height);
    })
    .toBe(vp.height - 60);
  await launcher.click();
  const frame = (await page.locator(`iframe[src*="/w/${CAFE}"]`).boundingBox())!;
  expect(Math.round(frame.y + frame.height)).toBe(vp.height - 128);
});

test("5. a restored conversation opens at its newest message, with each answer's chips", async ({ page }) => {
  const long = Array.from({ length: 30 }, (_, i) => `Line ${i + 1} of a long answer.`).join("\n\n");
  await model.setRules([OPEN_NOW, { match: "long", steps: [{ type: "text", text: long }] }]);
  const panel = await openAndAsk(page, {}, "are you open now?");
  await expect(panel.locator(".msg.bot .bubble").last()).toHaveText(OPEN_ANSWER);
  for (const q of ["a long one", "another long one"]) {
    await panel.getByRole("textbox", { name: "Your message" }).fill(q);
    await panel.getByRole("textbox", { name: "Your message" }).press("Enter");
    await expect(panel.locator(".msg.bot .bubble").last()).toContainText("Line 30");
  }
  await page.reload();
  await page.getByRole("button", { name: "Open chat" }).click();
  const again = panelOf(page);
  await expect(again.locator(".msg.me")).toHaveCount(3);
  // Newest first in view: the last answer's end is on screen, the greeting is scrolled away.
  await expect(again.locator(".msg.bot .bubble").last().getByText("Line 30")).toBeInViewport();
  await expect(again.getByText("Welcome to E2E Café!")).not.toBeInViewport();
  // The first answer has its chip back, settled as done.
  const chip = again.locator(".msg.bot").filter({ hasText: OPEN_ANSWER }).locator(".chip");
  await expect(chip).toContainText("Checking if we're open");
  await expect(chip).toHaveClass(/\bdone\b/);
});

test("6. after a failed turn and a reload, the unanswered question shows Retry, which answers it once", async ({
  page,
}) => {
  await model.setRules([{ match: "fragile", steps: [{ type: "http_error", status: 400 }] }]);
  const panel = await openAndAsk(page, {}, "a fragile question");
  await expect(panel.getByRole("button", { name: "Retry" })).toBeVisible();
  await page.reload();
  await page.getByRole("button", { name: "Open chat" }).click();
  const again = panelOf(page);
  await expect(again.locator(".msg.me")).toHaveText(["You: a fragile question"]);
  await expect(again.locator(".err")).toContainText(STRINGS.en.trouble);
  await model.setRules([{ match: "fragile", steps: [{ type: "text", text: "Sturdy answer." }] }]);
  await again.getByRole("button", { name: "Retry" }).click();
  await expect(again.locator(".msg.bot .bubble").last()).toHaveText("Sturdy answer.");
  await expect(again.getByRole("button", { name: "Retry" })).toHaveCount(0);
  const asked = (await model.requests()).at(-1)?.body.messages.filter((m) => m.role === "user");
  expect(asked?.map((m) => m.content)).toEqual(["a fragile question"]);
});

test("7. greeting per language as Markdown, starter chips until the first message, and answer tables", async ({
  page,
}) => {
  await signIn(page, E2E.operator);
  await page.goto(`/admin/${E2E.visitor.slug}/bot`);
  await page.getByLabel("Greeting", { exact: true }).fill("Hi! See our **menu**.");
  // The per-language words are folded behind a control that says what it holds.
  await page.getByText("Greeting, starters and consent in each language").click();
  await page.getByLabel("Greeting in Español").fill("¡Hola! Mira nuestro **menú**.");
  await page.getByLabel("Starter prompts in Español").fill("¿Qué hay en el menú?\n¿Estáis abiertos?");
  await page.getByLabel("Starter prompt 1").fill("What is on the menu?");
  await page.getByLabel("Starter prompt 2").fill("Are you open now?");
  await page.getByRole("button", { name: "Save bot settings" }).click();
  await expect(page.getByText(/Bot settings saved|No changes to save/)).toBeVisible();

  await page.goto(host.url({ key: VISITOR, lang: "es" }));
  await page.getByRole("button", { name: STRINGS.es.open }).click();
  const es = panelOf(page, VISITOR);
  await expect(es.locator(".msg.bot .bubble").first()).toHaveText("¡Hola! Mira nuestro menú.");
  await expect(es.locator(".msg.bot .bubble strong").first()).toHaveText("menú");
  // A Spanish visitor sees only Spanish: the starters, and the contact form's consent sentence.
  await expect(es.getByRole("group", { name: STRINGS.es.suggestions }).getByRole("button")).toHaveText([
    "¿Qué hay en el menú?",
    "¿Estáis abiertos?",
  ]);
  await es.getByRole("button", { name: HANDOFF_STRINGS.es.menu }).click();
  await es.getByRole("button", { name: HANDOFF_STRINGS.es.talk }).click();
  await expect(es.locator("form.hf .hf-consent")).toHaveText(DEFAULT_CONSENTS.es);

  await page.goto(host.url({ key: VISITOR }));
  await page.getByRole("button", { name: "Open chat" }).click();
  const en = panelOf(page, VISITOR);
  await expect(en.locator(".msg.bot .bubble strong").first()).toHaveText("menu");
  await expect(en.locator(".panel")).not.toContainText("**");
  const starters = en.getByRole("group", { name: "Suggested questions" }).getByRole("button");
  await expect(starters).toHaveText(["What is on the menu?", "Are you open now?"]);

  await model.setRules([
    {
      match: "menu",
      steps: [
        { type: "text", text: "| Dish | Price |\n| --- | ---: |\n| Soup | 4 € |\n| <b>Cake</b> | 3 € |" },
      ],
    },
  ]);
  await starters.first().click();
  await expect(en.getByRole("group", { name: "Suggested questions" })).toHaveCount(0);
  const table = en.locator(".msg.bot .bubble table").last();
  await expect(table.locator("th")).toHaveText(["Dish", "Price"]);
  await expect(table.locator("tbody tr")).toHaveCount(2);
  await expect(table.locator("td").nth(2)).toHaveText("<b>Cake</b>");
  await expect(table.locator("b")).toHaveCount(0);
});

test("8. the panel document stays the frame's height with many messages; hidden texts stay inside the log", async ({
  page,
}) => {
  await model.setRules([]);
  const panel = await openAndAsk(page, {}, "message 1");
  for (let i = 2; i <= 7; i++) {
    await expect(panel.locator(".msg.bot .bubble").last()).toHaveText(`You said: message ${i - 1}`);
    await panel.getByRole("textbox", { name: "Your message" }).fill(`message ${i}`);
    await panel.getByRole("textbox", { name: "Your message" }).press("Enter");
  }
  await expect(panel.locator(".msg.bot .bubble").last()).toHaveText("You said: message 7");
  await expect(panel.locator(".msg")).toHaveCount(15);
  const frame = await panelFrame(page);
  const sizes = await frame.evaluate(() => ({
    doc: document.documentElement.scrollHeight,
    body: document.body.scrollHeight,
    view: window.innerHeight,
    // Every visually hidden text is held by a positioned box inside the log or the panel.
    loose: [...document.querySelectorAll(".sr")].filter((el) => {
      const holder = (el as HTMLElement).offsetParent;
      return !holder || !holder.closest(".panel");
    }).length,
  }));
  expect(sizes.doc).toBeLessThanOrEqual(sizes.view);
  expect(sizes.body).toBeLessThanOrEqual(sizes.view);
  expect(sizes.loose).toBe(0);
});

test("9a. Stop ends a streaming answer, keeps what arrived, and the stored turn says the same after a reload", async ({
  page,
}) => {
  const words = Array.from({ length: 300 }, (_, i) => `w${i + 1}`).join(" ");
  await model.setRules([{ match: "slowly", steps: [{ type: "slow_text", text: words, chunkDelayMs: 100 }] }]);
  const panel = await openAndAsk(page, {}, "tell me slowly");
  const answer = panel.locator(".msg.bot .bubble").last();
  await expect(answer).toContainText("w3");
  await panel.getByRole("button", { name: "Stop" }).click();
  await expect(panel.locator(".err")).toContainText(STRINGS.en.stopped);
  await expect(panel.getByRole("button", { name: "Send" })).toBeVisible();
  const seen = (await answer.textContent()) ?? "";
  expect(seen).not.toContain("w300");

  // The server stores the cut answer once it has noticed the visitor left the stream, a moment after Stop;
  // the reload is repeated until that record exists (what it holds is checked below, once).
  const again = panelOf(page);
  await expect(async () => {
    await page.reload();
    await page.getByRole("button", { name: "Open chat" }).click();
    await expect(again.locator(".msg.bot .bubble")).toHaveCount(2, { timeout: 2000 });
  }).toPass();
  const stored = (await again.locator(".msg.bot .bubble").last().textContent()) ?? "";
  // Stored as the partial answer the visitor saw (plus at most the characters that were in flight).
  expect(stored.startsWith(seen)).toBe(true);
  expect(stored).not.toContain("w300");
  await expect(again.locator(".err")).toContainText(STRINGS.en.stopped);
  await expect(again.getByRole("button", { name: "Retry" })).toBeVisible();
});

test("9b. an answer arriving while the panel is closed marks the launcher unread until it opens", async ({
  page,
}) => {
  await model.setRules([
    { match: "later", steps: [{ type: "slow_text", text: "Here it is, a bit later.", chunkDelayMs: 150 }] },
  ]);
  const panel = await openAndAsk(page, {}, "answer me later");
  await expect(panel.locator(".typing, .msg.bot .bubble").last()).toBeVisible();
  await page.getByRole("button", { name: "Close chat" }).click();
  const unread = page.getByRole("button", { name: STRINGS.en.unread });
  await expect(unread).toBeVisible();
  await expect(page.locator("michi-chat i")).toBeVisible();
  await unread.click();
  await expect(panel.locator(".msg.bot .bubble").last()).toHaveText("Here it is, a bit later.");
  await expect(page.getByRole("button", { name: "Close chat" })).toBeVisible();
  await expect(page.locator("michi-chat i")).toBeHidden();
});

test("9c. a failed tool run shows a visible error chip", async ({ page }) => {
  await model.setRules([
    {
      match: "broken tool",
      steps: [
        { type: "tool_calls", calls: [{ name: "get_opening_status", arguments: '{"unexpected": ' }] },
        { type: "text", text: "I could not check that." },
      ],
    },
  ]);
  const panel = await openAndAsk(page, {}, "use the broken tool");
  await expect(panel.locator(".msg.bot .bubble").last()).toHaveText("I could not check that.");
  const chip = panel.locator(".chip");
  await expect(chip).toHaveClass(/\berror\b/);
  await expect(chip).toContainText("Checking if we're open");
  await expect(chip.locator(".why")).toHaveText(STRINGS.en.toolFailed);
  const colours = await (await panelFrame(page)).evaluate(() => {
    const el = document.querySelector(".chip.error") as Element;
    return { chip: getComputedStyle(el).color, text: getComputedStyle(document.body).color };
  });
  expect(colours.chip).not.toBe(colours.text);
});

test("10. opening the panel logs no postMessage warning on the host page", async ({ page }) => {
  const logged: string[] = [];
  page.on("console", (m) => logged.push(`${m.type()}: ${m.text()}`));
  await page.goto(host.url({ key: CAFE }));
  await page.getByRole("button", { name: "Open chat" }).click();
  await expect(panelOf(page).getByRole("textbox", { name: "Your message" })).toBeFocused();
  await page.getByRole("button", { name: "Close chat" }).click();
  await page.getByRole("button", { name: "Open chat" }).click();
  await expect(panelOf(page).getByRole("textbox", { name: "Your message" })).toBeFocused();
  expect(logged.filter((l) => /postMessage|target origin/i.test(l))).toEqual([]);
});
