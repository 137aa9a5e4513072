import { describe, expect, it } from "vitest";
import { BUBBLE_BG, contrastRatio, DEFAULT_COLOR, parseHex, readableText, themeFor } from "@/widget/contrast";

describe("contrast against the tenant colour", () => {
  it("computes WCAG ratios (black on white is 21:1, same colour is 1:1)", () => {
    expect(contrastRatio([0, 0, 0], [255, 255, 255])).toBeCloseTo(21, 5);
    expect(contrastRatio([18, 52, 86], [18, 52, 86])).toBe(1);
  });

  it("puts black text on light brand colours and white on dark ones", () => {
    expect(themeFor("#ffd400").onColor).toBe("#000000"); // yellow
    expect(themeFor("#f0f0f0").onColor).toBe("#000000");
    expect(themeFor("#0f766e").onColor).toBe("#ffffff"); // teal
    expect(themeFor("#1e1b4b").onColor).toBe("#ffffff");
  });

  it("always reaches at least 4.5:1 for text on the colour, whatever the tenant picked", () => {
    for (let r = 0; r <= 255; r += 51)
      for (let g = 0; g <= 255; g += 51)
        for (let b = 0; b <= 255; b += 51) {
          const text = parseHex(readableText([r, g, b]))!;
          expect(contrastRatio([r, g, b], text)).toBeGreaterThanOrEqual(4.5);
        }
  });

  it("uses the tenant colour for links only when it is legible on the bubble", () => {
    const bubble = parseHex(BUBBLE_BG)!;
    expect(themeFor("#0b3d91").link).toBe("#0b3d91");
    const pale = themeFor("#ffd400");
    expect(pale.link).not.toBe("#ffd400");
    expect(contrastRatio(parseHex(pale.link)!, bubble)).toBeGreaterThanOrEqual(4.5);
  });

  it("falls back to the default colour for anything that is not a hex colour", () => {
    for (const bad of [
      "red",
      "url(https://x.example)",
      "#12",
      "#1234567",
      "",
      undefined,
      "expression(alert(1))",
    ])
      expect(themeFor(bad).color).toBe(DEFAULT_COLOR);
    expect(themeFor("#ABC").color).toBe("#aabbcc");
  });
});

describe("one default colour", () => {
  it("the widget falls back to the colour the Bot form shows for a new business", async () => {
    const { BOT_DEFAULTS } = await import("@/shared/bot-defaults");
    expect(DEFAULT_COLOR).toBe(BOT_DEFAULTS.color);
    expect(themeFor(undefined).color).toBe(BOT_DEFAULTS.color);
  });
});
