import { expect, test } from "@playwright/test";
import { E2E } from "../support/e2e-env";
import { HOSTILE, hostPageAt } from "../support/host-page";
import { CAFE, model, OPEN_ANSWER, OPEN_NOW, panelOf } from "./widget-helpers";

// Host pages that break embeds the way real sites do (each one described, with its sources, beside HOSTILE in
// tests/support/host-page.ts). On every one the launcher must sit in the viewport's corner at its own size,
// nothing may cover it or the message box, and a whole turn must complete.

const host = hostPageAt(E2E.hostPageOrigin);
test.beforeEach(async () => {
  await model.reset();
  await model.setRules([OPEN_NOW]);
});

/** The banner page's banner is 120 px tall; the embed lifts the widget above it with data-michi-offset. */
const BANNER_OFFSET = 130;

for (const hostile of HOSTILE) {
  test(`hostile host page "${hostile}": the launcher shows in the viewport and a turn completes`, async ({
    page,
  }) => {
    const problems: string[] = [];
    page.on("console", (m) => {
      if (m.type() === "error" || m.type() === "warning") problems.push(m.text());
    });
    page.on("pageerror", (e) => problems.push(e.message));
    const offset = hostile === "banner" ? BANNER_OFFSET : 0;
    await page.goto(host.url({ key: CAFE, hostile, ...(offset ? { offset: String(offset) } : {}) }));
    const launcher = page.getByRole("button", { name: "Open chat" });
    await expect(launcher).toBeInViewport({ ratio: 1 });
    const vp = page.viewportSize()!;
    const box = (await launcher.boundingBox())!;
    // Its own size (no zoom), in the bottom-right corner of the viewport (not of a transformed body).
    expect(Math.round(box.width)).toBe(56);
    expect(Math.round(box.x + box.width)).toBe(vp.width - 20);
    expect(Math.round(box.y + box.height)).toBe(vp.height - 20 - offset);

    // Playwright clicks only what is on top at that point: a covering banner would fail this.
    await launcher.click();
    const frame = page.locator(`iframe[src*="/w/${CAFE}"]`);
    await expect(frame).toBeInViewport({ ratio: 1 });
    const frameBox = (await frame.boundingBox())!;
    expect(frameBox.y + frameBox.height).toBeLessThanOrEqual(vp.height - offset);
    const panel = panelOf(page);
    const input = panel.getByRole("textbox", { name: "Your message" });
    await input.click();
    await input.fill("are you open now?");
    await input.press("Enter");
    await expect(panel.locator(".chip")).toContainText("Checking if we're open");
    await expect(panel.locator(".msg.bot .bubble").last()).toHaveText(OPEN_ANSWER);

    if (hostile === "filter" || hostile === "zoom" || hostile === "transform") {
      // The widget hangs off <html>, outside the body that would grey, scale or move it.
      expect(await page.evaluate(() => document.querySelector("michi-chat")?.parentElement?.tagName)).toBe(
        "HTML",
      );
    }
    // Nothing of the widget's own doing reached the console (the host page's CSP reports, Trusted Types
    // refusals, postMessage origin mismatches, uncaught errors).
    expect(problems.filter((p) => /michi|widget|postMessage|Trusted|Content Security/i.test(p))).toEqual([]);
  });
}
