import { expect, type Page, test } from "@playwright/test";
import { Webhook } from "standardwebhooks";
import { E2E } from "../support/e2e-env";
import { hostPageAt } from "../support/host-page";
import { signIn } from "./admin-support";
import { CAFE, model, panelOf } from "./widget-helpers";

// Issue 16 end to end: a visitor on a customer's site (another origin) asks for a person, the business gets the
// mail (a real SMTP server in the world) and a signed webhook (an https receiver), and the request is in the
// Inbox; a visitor rates an answer down, and it shows on the transcript, on Usage and in Unanswered questions.

const host = hostPageAt(E2E.hostPageOrigin);
const CONSENT = "I agree that E2E Café may contact me about this request.";
const PERSON = {
  match: "talk to a person",
  steps: [
    {
      type: "tool_calls" as const,
      calls: [{ name: "request_human", arguments: '{"topic":"a birthday party"}' }],
    },
    { type: "text" as const, text: "Of course: leave your details below and someone will call you." },
  ],
};

type Mail = { to: string[]; subject: string; text: string; replyTo: string };
type Hook = { path: string; headers: Record<string, string>; body: string };
const received = async <T>(what: "mails" | "hooks"): Promise<T[]> =>
  (await fetch(`${E2E.inboxUrl}/${what}`)).json() as Promise<T[]>;

/** The webhooks of one type whose signature the standardwebhooks package accepts with the endpoint's secret. */
async function signedHooks(type: string) {
  const hooks = await received<Hook>("hooks");
  return hooks.flatMap((h) => {
    const event = new Webhook(E2E.hookSecret).verify(h.body, h.headers) as {
      type: string;
      data: { lead?: Record<string, unknown>; feedback?: Record<string, unknown> };
    };
    // Each event wraps its facts in its noun (docs/webhooks.md): { lead: {...} } or { feedback: {...} }.
    return event.type === type ? [event.data.lead ?? event.data.feedback ?? {}] : [];
  });
}

async function setRequestHuman(page: Page, on: boolean) {
  await page.goto(`/admin/${E2E.cafe.slug}/tools/request_human`);
  const card = page.locator('section[data-pack="request_human"]');
  const enabled = card.getByLabel("Enabled: the bot may use this tool");
  if (on) {
    await enabled.check();
    await card.getByLabel("Consent text").fill(CONSENT);
  } else await enabled.uncheck();
  await card.getByRole("button", { name: "Save", exact: true }).click();
  await expect(card.getByText(/saved\.|turned off|No changes/)).toBeVisible();
}

async function openChat(page: Page) {
  await page.goto(host.url({ key: CAFE }));
  await page.getByRole("button", { name: "Open chat" }).click();
  return panelOf(page);
}

test.describe.configure({ mode: "serial" });

test.beforeEach(async () => {
  await model.reset();
  await model.setRules([PERSON]);
});

test("the assistant offers a person; the visitor fills the form; mail, signed webhook and Inbox follow", async ({
  page,
}) => {
  await signIn(page, E2E.operator);
  await setRequestHuman(page, true);
  try {
    const panel = await openChat(page);
    const input = panel.getByRole("textbox", { name: "Your message" });
    await input.fill("Can I talk to a person about a birthday party?");
    await input.press("Enter");
    await expect(panel.locator(".msg.bot .bubble").last()).toContainText("leave your details below");
    const form = panel.locator("form.hf");
    await expect(form).toBeVisible();
    await expect(form).toContainText(CONSENT);
    // The bot just said it: the form does not say the same sentence again, and its button is not a second "Send".
    // (Kept as the form's name for screen readers, in a visually hidden line, not as the visible title.)
    await expect(form.locator(".hf-title")).toHaveCount(0);
    await expect(
      panel.getByRole("form", { name: "Leave your details and a person will get back to you." }),
    ).toBeVisible();
    await expect(panel.getByRole("button", { name: "Send", exact: true })).toHaveCount(1);
    await expect(form.getByRole("button", { name: "Send request" })).toBeVisible();

    // Nothing to reach the visitor by: refused in the panel, in the visitor's words.
    await form.getByLabel("How can we help?").fill("A party for 12 on Saturday.");
    await form.getByRole("button", { name: "Send" }).click();
    await expect(form.getByText("Please give an e-mail address or a phone number.")).toBeVisible();

    await form.getByLabel("Name (optional)").fill("Ana Party");
    await form.getByLabel("E-mail").fill("ana.party@example.org");
    await form.getByLabel(CONSENT).check();
    await form.getByRole("button", { name: "Send" }).click();
    await expect(
      panel.getByRole("status").filter({ hasText: "Thank you! Someone from E2E Café" }),
    ).toBeVisible();

    // The model saw that a form was shown, never what was typed into it.
    const sent = JSON.stringify((await model.requests()).map((r) => r.body));
    expect(sent).not.toContain("ana.party@example.org");

    // The business is told: a mail to its owner and a lead.created webhook the receiver can verify.
    await expect
      .poll(async () => (await received<Mail>("mails")).filter((m) => m.subject.includes("Ana Party")))
      .toHaveLength(1);
    const [mail] = (await received<Mail>("mails")).filter((m) => m.subject.includes("Ana Party"));
    expect(mail!.to).toEqual([E2E.operator.email]);
    expect(mail!.text).toContain("A party for 12 on Saturday.");
    expect(mail!.replyTo).toBe("ana.party@example.org");
    await expect
      .poll(async () => (await signedHooks("lead.created")).map((d) => d.email))
      .toContain("ana.party@example.org");

    // The Inbox: the request with the conversation as the visitor saw it; marked handled by whom.
    await page.goto(`/admin/${E2E.cafe.slug}/inbox`);
    const item = page.getByRole("listitem").filter({ hasText: "Ana Party" });
    await expect(item).toContainText("ana.party@example.org");
    await expect(item).toContainText("offered by the assistant");
    await item.getByText(/The conversation as the visitor saw it/).click();
    await expect(item).toContainText("Can I talk to a person about a birthday party?");
    await item.getByRole("button", { name: "Mark handled" }).click();
    await expect(item).toContainText(`by ${E2E.operator.email}`);
  } finally {
    await setRequestHuman(page, false);
  }
});

test("the menu's 'Talk to a person' is there whatever the packs; a phone number is enough", async ({
  page,
}) => {
  const panel = await openChat(page);
  await panel.getByRole("button", { name: "More options" }).click();
  await panel.getByRole("button", { name: "Talk to a person" }).click();
  const form = panel.locator("form.hf");
  await form.getByLabel("Phone").fill("+81 90 1234 5678");
  await form.getByLabel("How can we help?").fill("Menu request: call me about catering.");
  await form.locator('input[type="checkbox"]').check();
  await form.getByRole("button", { name: "Send" }).click();
  await expect(panel.getByRole("status").filter({ hasText: "Thank you!" })).toBeVisible();
  await expect
    .poll(async () => (await signedHooks("lead.created")).map((d) => d.phone))
    .toContain("+81 90 1234 5678");
});

test("a visitor rates an answer down: transcript, Conversations filter, Usage and Unanswered questions", async ({
  page,
}) => {
  const panel = await openChat(page);
  const input = panel.getByRole("textbox", { name: "Your message" });
  // No rule matches: the fake model echoes, which is not what the visitor wanted.
  await input.fill("Do you deliver to Osaka on Sundays?");
  await input.press("Enter");
  const reply = panel.locator(".msg.bot").last();
  await expect(reply.locator(".bubble")).toHaveText("You said: Do you deliver to Osaka on Sundays?");
  await reply.getByRole("button", { name: "Not helpful" }).click();
  await reply.getByRole("textbox", { name: "What was wrong? (optional)" }).fill("I asked about delivery");
  await reply.getByRole("button", { name: "Send" }).click();
  await expect(reply.getByText("Thanks for your feedback.")).toBeVisible();
  await expect(reply.getByRole("button", { name: "Not helpful" })).toHaveAttribute("aria-pressed", "true");
  await expect
    .poll(async () => (await signedHooks("feedback.created")).map((d) => d.comment))
    .toContain("I asked about delivery");

  // After a reload the visitor sees their own rating again, not two unpressed thumbs.
  const again = await openChat(page);
  const restored = again
    .locator(".msg.bot")
    .filter({ hasText: "You said: Do you deliver to Osaka on Sundays?" });
  await expect(restored.getByRole("button", { name: "Not helpful" })).toHaveAttribute("aria-pressed", "true");
  await expect(restored.getByRole("button", { name: "Helpful", exact: true })).toHaveAttribute(
    "aria-pressed",
    "false",
  );

  await signIn(page, E2E.operator);
  await page.goto(`/admin/${E2E.cafe.slug}/conversations?rating=down`);
  await page.getByRole("link", { name: "Do you deliver to Osaka on Sundays?" }).click();
  await expect(
    page.getByText("Visitor rated this answer not helpful: “I asked about delivery”"),
  ).toBeVisible();

  await page.goto(`/admin/${E2E.cafe.slug}/usage`);
  const satisfaction = page.locator("#satisfaction");
  await expect(satisfaction).toContainText("of rated answers were helpful");
  await expect(satisfaction).toContainText(/\d+ helpful, [1-9]\d* not helpful/);

  await page.goto(`/admin/${E2E.cafe.slug}/unanswered`);
  const group = page.getByRole("listitem").filter({ hasText: "Do you deliver to Osaka on Sundays?" });
  await expect(group).toContainText("rated down");
  await group.getByRole("button", { name: "Mark handled" }).click();
  // Handled questions leave the report at once, and stay gone after a reload.
  await expect(group).toHaveCount(0);
  await page.reload();
  await expect(page.getByRole("heading", { name: "Unanswered questions" })).toBeVisible();
  await expect(group).toHaveCount(0);
});
