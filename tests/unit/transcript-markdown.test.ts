import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { Markdown } from "@/components/transcript/Markdown";
import { TranscriptMessage } from "@/components/transcript/TranscriptMessage";

// The admin's transcript draws answers with the widget's own parser, so they look as the visitor saw them
// and hostile model output stays text here too.

const html = (source: string) => renderToStaticMarkup(createElement(Markdown, { source }));

describe("transcript Markdown", () => {
  it("renders the widget's subset: emphasis, lists, code and https links", () => {
    const out = html("**Yes**, we deliver:\n\n- Monday\n- until `18:00`\n\n[hours](https://example.com/h)");
    expect(out).toContain("<strong>Yes</strong>");
    expect(out).toContain("<li>Monday</li>");
    expect(out).toContain("<code>18:00</code>");
    expect(out).toContain(
      '<a href="https://example.com/h" target="_blank" rel="noopener noreferrer nofollow">hours</a>',
    );
  });

  it("keeps markup and unsafe links inert", () => {
    for (const evil of [
      '<img src=x onerror="alert(1)">',
      "[x](javascript:alert(1))",
      "![t](https://evil.example/p.png)",
      "<script>alert(1)</script>",
    ]) {
      const out = html(evil);
      expect(out, evil).not.toMatch(/<(img|script)\b/);
      expect(out, evil).not.toContain('href="javascript');
    }
  });

  it("a bot message carries both the rendered answer and its source; a visitor's text stays as typed", () => {
    const bot = renderToStaticMarkup(
      createElement(TranscriptMessage, {
        id: "m1",
        role: "assistant",
        tz: "UTC",
        content: "**Hi**",
        createdAt: new Date("2026-11-30T10:04:05Z"),
        status: "complete",
        reason: null,
      }),
    );
    expect(bot).toContain('class="transcript-rendered');
    expect(bot).toContain("<strong>Hi</strong>");
    expect(bot).toMatch(/class="transcript-source[^"]*">\*\*Hi\*\*<\/pre>/);
    expect(bot).toContain("30 Nov 2026, 10:04:05 UTC");
    const visitor = renderToStaticMarkup(
      createElement(TranscriptMessage, {
        id: "m0",
        role: "user",
        tz: "UTC",
        content: "**not bold**",
        createdAt: new Date("2026-11-30T10:04:00Z"),
        status: "complete",
        reason: null,
      }),
    );
    expect(visitor).toContain("**not bold**");
    expect(visitor).not.toContain("<strong>");
  });
});
