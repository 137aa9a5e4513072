import type { Frame, FrameLocator, Page } from "@playwright/test";
import { E2E } from "../support/e2e-env";
import { fakeModelControl, type Rule } from "../support/fake-model";

// Shared by the widget specs: the fake model's script and small page helpers.

export const model = fakeModelControl(E2E.modelUrl);
export const CAFE = E2E.cafe.widgetKey;

/** The scenario: the model calls get_opening_status, then composes its answer from the result. */
export const OPEN_NOW: Rule = {
  match: "open now",
  steps: [
    { type: "tool_calls", calls: [{ name: "get_opening_status", arguments: "{}" }] },
    {
      type: "slow_text",
      text: "We are open: {{tool.open}}. Today we close at {{tool.nextChange}}.",
      chunkDelayMs: 25,
    },
  ],
};
export const OPEN_ANSWER = "We are open: true. Today we close at 18:00.";

export function panelOf(page: Page, key: string = CAFE): FrameLocator {
  return page.frameLocator(`iframe[src*="/w/${key}"]`);
}

/** The panel's Frame, for evaluating scripts inside it. */
export async function panelFrame(page: Page, key: string = CAFE): Promise<Frame> {
  const handle = await page.locator(`iframe[src*="/w/${key}"]`).elementHandle();
  const frame = await handle?.contentFrame();
  if (!frame) throw new Error("no panel frame");
  await frame.waitForSelector(".panel");
  return frame;
}

/**
 * Records, inside the panel, the order in which the turn's pieces first appear: typing indicator, chip (with
 * its state), each distinct length of the answer text. Ordering proves behaviour without timing anything.
 */
export async function recordTurn(frame: Frame) {
  await frame.evaluate(() => {
    const seen: string[] = [];
    (window as unknown as { __turn: string[] }).__turn = seen;
    const note = (s: string) => {
      if (seen[seen.length - 1] !== s) seen.push(s);
    };
    new MutationObserver(() => {
      // The newest reply after the visitor's message (the greeting is a .msg.bot too).
      const reply = [...document.querySelectorAll(".msg.me ~ .msg.bot")].pop();
      if (!reply) return;
      if (reply.querySelector(".typing")) note("typing");
      for (const chip of reply.querySelectorAll(".chip")) note(`chip:${chip.className.replace("chip ", "")}`);
      const text = reply.querySelector(".bubble")?.textContent ?? "";
      if (text) note(`text:${text.length}`);
    }).observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true });
  });
  return () => frame.evaluate(() => (window as unknown as { __turn: string[] }).__turn);
}
