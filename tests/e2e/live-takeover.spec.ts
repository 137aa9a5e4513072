import { expect, type Page, test } from "@playwright/test";
import { E2E } from "../support/e2e-env";
import { hostPageAt } from "../support/host-page";
import { png } from "../support/images";
import { signIn } from "./admin-support";
import { CAFE, model, panelOf } from "./widget-helpers";

// Issue 28 end to end, on the production build with two browser contexts: a visitor on the café's site asks
// for a person; the agent (signed in, Live chat open) is notified, claims the conversation and replies; the
// visitor reads it live, reloads mid-conversation and loses nothing; the agent hands back to the bot and the
// visitor's next question is answered by the model again. Then a visitor who asks for a person before writing
// anything gets one too, and sees the photo the agent set on their account page beside their name.

const host = hostPageAt(E2E.hostPageOrigin);

/** Whether an <img> has loaded and decoded its picture (a broken one has no natural width). */
const decoded = (img: ReturnType<Page["locator"]>) =>
  img.evaluate((el) => (el as HTMLImageElement).complete && (el as HTMLImageElement).naturalWidth > 0);

async function openChat(page: Page) {
  await page.goto(host.url({ key: CAFE }));
  await page.getByRole("button", { name: "Open chat" }).click();
  return panelOf(page);
}

test.beforeEach(async () => {
  await model.reset();
  await model.setRules([
    { match: "birthday cake", steps: [{ type: "text", text: "We bake birthday cakes to order." }] },
    { match: "opening hours", steps: [{ type: "text", text: "We open at eight every day." }] },
  ]);
});

test("a visitor asks for a person, the agent claims and replies live, a reload loses nothing, hand back", async ({
  browser,
}) => {
  const agentContext = await browser.newContext();
  const visitorContext = await browser.newContext();
  try {
    const agent = await agentContext.newPage();
    await signIn(agent, E2E.operator);
    await agent.goto(`/admin/${E2E.cafe.slug}/inbox/live`);
    // Live: the console's stream is open and its heartbeat has made the agent available.
    await expect(agent.getByText("Live: new messages appear here by themselves.")).toBeVisible();

    const visitor = await visitorContext.newPage();
    const panel = await openChat(visitor);
    const input = panel.getByRole("textbox", { name: "Your message" });
    await input.fill("Do you make a birthday cake?");
    await input.press("Enter");
    await expect(panel.locator(".msg.bot .bubble").last()).toContainText("We bake birthday cakes to order.");

    await panel.getByRole("button", { name: "More options" }).click();
    await panel.getByRole("button", { name: "Talk to a person" }).click();
    // The agent is online, so the request is theirs at once: the visitor is told whom they wait for.
    await expect(panel.locator(".live-bar")).toContainText(/^(?!Someone).+ will be with you shortly\./);
    // A person could be asked for, so no contact form.
    await expect(panel.locator("form.hf")).toHaveCount(0);

    // The agent is told, sees what was asked, and claims.
    await expect(
      agent.getByRole("alert").filter({ hasText: "A visitor is waiting for a person." }),
    ).toBeVisible();
    const queue = agent.getByRole("list", { name: "Live conversations" });
    await expect(queue).toContainText("Do you make a birthday cake?");
    await expect(queue).toContainText("Waiting for a person");
    await agent.getByRole("button", { name: "Claim" }).click();
    await expect(panel.locator(".live-bar")).toContainText(/joined the conversation\./);

    // The visitor keeps typing: stored, shown to the agent, not sent to the model.
    const asked = (await model.requests()).length;
    await input.fill("Can it be chocolate?");
    await input.press("Enter");
    await expect(agent.getByRole("list", { name: "Transcript" })).toContainText("Can it be chocolate?");
    expect((await model.requests()).length).toBe(asked);

    const reply = agent.getByRole("form", { name: "Reply to the visitor" });
    await reply.getByLabel("Reply").fill("Yes, **chocolate** is our favourite.");
    await reply.getByRole("button", { name: "Preview" }).click();
    await expect(reply.getByLabel("Preview").locator("strong")).toHaveText("chocolate");
    await reply.getByRole("button", { name: "Send" }).click();
    const agentMsgs = panel.locator(".msg.agent");
    await expect(agentMsgs).toHaveCount(1);
    await expect(agentMsgs.first().locator("strong")).toHaveText("chocolate");

    // A reload mid-conversation: everything is there once, and the live part goes on.
    await visitor.reload();
    await visitor.getByRole("button", { name: "Open chat" }).click();
    const again = panelOf(visitor);
    await expect(again.locator(".msg.me .bubble")).toHaveText([
      "Do you make a birthday cake?",
      "Can it be chocolate?",
    ]);
    await expect(again.locator(".msg.agent")).toHaveCount(1);
    await expect(again.locator(".live-bar")).toContainText(/joined the conversation\./);
    await reply.getByRole("button", { name: "Edit" }).click();
    await reply.getByLabel("Reply").fill("It will be ready on Saturday.");
    await reply.getByRole("button", { name: "Send" }).click();
    await expect(again.locator(".msg.agent")).toHaveCount(2);
    await expect(again.locator(".msg.agent").last()).toContainText("It will be ready on Saturday.");

    // Hand back: the model answers the next question again.
    await agent.getByRole("button", { name: "Hand back to the bot" }).click();
    await expect(again.locator(".live-bar")).toHaveText("You are talking with the assistant again.");
    const input2 = again.getByRole("textbox", { name: "Your message" });
    await input2.fill("What are your opening hours?");
    await input2.press("Enter");
    await expect(again.locator(".msg.bot .bubble").last()).toContainText("We open at eight every day.");
    await expect(again.locator(".msg.agent")).toHaveCount(2);
  } finally {
    await agentContext.close();
    await visitorContext.close();
  }
});

test("Talk to a person before the first message reaches the agent, whose photo shows beside their name", async ({
  browser,
}) => {
  const agentContext = await browser.newContext();
  const visitorContext = await browser.newContext();
  try {
    const agent = await agentContext.newPage();
    await signIn(agent, E2E.operator);
    // The agent sets a profile photo on their account page (checked by its bytes on the server).
    await agent.goto(`/admin/${E2E.cafe.slug}/account`);
    await agent
      .locator("#photo")
      .getByLabel("Photo", { exact: true })
      .setInputFiles({
        name: "me.png",
        mimeType: "image/png",
        buffer: png(48, 48),
      });
    await agent.getByRole("button", { name: "Save photo" }).click();
    await expect(agent.getByText("Photo saved.")).toBeVisible();
    await expect.poll(() => decoded(agent.locator('#photo img[data-avatar="photo"]'))).toBe(true);
    await agent.goto(`/admin/${E2E.cafe.slug}/inbox/live`);
    await expect(agent.getByText("Live: new messages appear here by themselves.")).toBeVisible();

    // Before writing anything, the visitor asks for a person: a live request, not the contact form.
    const visitor = await visitorContext.newPage();
    const panel = await openChat(visitor);
    await panel.getByRole("button", { name: "More options" }).click();
    await panel.getByRole("button", { name: "Talk to a person" }).click();
    // The agent is online, so the request is theirs at once: the visitor is told whom they wait for.
    await expect(panel.locator(".live-bar")).toContainText(/^(?!Someone).+ will be with you shortly\./);
    await expect(panel.locator("form.hf")).toHaveCount(0);
    const queue = agent.getByRole("list", { name: "Live conversations" });
    const item = queue.locator("li", { hasText: "No message yet" });
    await expect(item).toHaveCount(1);

    // What the visitor then types waits for the person, not for the model.
    const asked = (await model.requests()).length;
    const input = panel.getByRole("textbox", { name: "Your message" });
    await input.fill("Is the terrace open today?");
    await input.press("Enter");
    const asking = queue.locator("li", { hasText: "Is the terrace open today?" });
    await expect(asking).toHaveCount(1);
    expect((await model.requests()).length).toBe(asked);

    await asking.getByRole("link").click();
    await expect(agent).toHaveURL(/[?&]c=/);
    await expect(agent.getByRole("list", { name: "Transcript" })).toContainText("Is the terrace open today?");
    await agent.getByRole("button", { name: "Claim" }).click();
    await expect(panel.locator(".live-bar")).toContainText(/joined the conversation\./);
    // The photo beside the name, for the visitor and in the console's queue.
    await expect.poll(() => decoded(panel.locator(".live-bar img.avatar"))).toBe(true);
    await expect.poll(() => decoded(asking.locator('img[data-avatar="photo"]'))).toBe(true);
    const reply = agent.getByRole("form", { name: "Reply to the visitor" });
    await reply.getByLabel("Reply").fill("Yes, until ten tonight.");
    await reply.getByRole("button", { name: "Send" }).click();
    const said = panel.locator(".msg.agent");
    await expect(said).toContainText("Yes, until ten tonight.");
    await expect.poll(() => decoded(said.locator("img.avatar"))).toBe(true);

    await agent.getByRole("button", { name: "End the chat" }).click();
    await expect(panel.locator(".live-bar")).toContainText("The conversation with a person has ended.");
    await expect(asking).toHaveCount(0);

    // Removed, the photo is gone: the initial again.
    await agent.goto(`/admin/${E2E.cafe.slug}/account`);
    await agent.getByRole("button", { name: "Remove photo" }).click();
    await expect(agent.getByText("Photo removed.")).toBeVisible();
    await expect(agent.locator('#photo [data-avatar="initial"]')).toBeVisible();
  } finally {
    await agentContext.close();
    await visitorContext.close();
  }
});
