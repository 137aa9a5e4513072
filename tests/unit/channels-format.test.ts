import { describe, expect, it } from "vitest";
import { toTelegramHtml, toTelegramMessages } from "@/lib/channels/telegram/format";
import { toWhatsAppMessages, toWhatsAppText } from "@/lib/channels/whatsapp/format";
import { parseTelegramHtml } from "../support/fake-telegram-dialect";

// The model answers in Markdown; a customer on WhatsApp should see WhatsApp's own bold and italics, and
// Telegram must accept every answer its HTML parser is given (one stray "<" or "&" refuses the whole message).

describe("toWhatsAppText", () => {
  it("turns Markdown emphasis into WhatsApp's *bold* _italic_ ~strike~", () => {
    expect(toWhatsAppText("We are open **Monday to Friday**, *9 to 6*.")).toBe(
      "We are open *Monday to Friday*, _9 to 6_.",
    );
    expect(toWhatsAppText("__bold__ and _italic_ and ~~gone~~ and ***both***")).toBe(
      "*bold* and _italic_ and ~gone~ and *_both_*",
    );
  });

  it("writes links as text (url), and a bare or autolinked URL once", () => {
    expect(toWhatsAppText("See [our hours](https://shop.example.com/hours).")).toBe(
      "See our hours (https://shop.example.com/hours).",
    );
    expect(toWhatsAppText("[https://x.example](https://x.example) or <https://y.example>")).toBe(
      "https://x.example or https://y.example",
    );
    expect(toWhatsAppText("![the map](https://shop.example.com/map.png)")).toBe(
      "the map (https://shop.example.com/map.png)",
    );
    // A URL with brackets of its own, as Wikipedia's are.
    expect(toWhatsAppText("See [Mole](https://en.wikipedia.org/wiki/Mole_(sauce)).")).toBe(
      "See Mole (https://en.wikipedia.org/wiki/Mole_(sauce)).",
    );
  });

  it("leaves URLs, inline code and code blocks exactly as written", () => {
    expect(toWhatsAppText("Go to https://shop.example.com/a_b_c/*x*")).toBe(
      "Go to https://shop.example.com/a_b_c/*x*",
    );
    expect(toWhatsAppText("Run `make **all**` now")).toBe("Run `make **all**` now");
    expect(toWhatsAppText('```js\nconst s = "**not bold**";\n```')).toBe(
      '```\nconst s = "**not bold**";\n```',
    );
  });

  it("makes headings bold, bullets round, rules blank, and keeps numbered lists and quotes", () => {
    expect(
      toWhatsAppText(
        "# Opening hours\n\n## **Weekdays**\n\n- one\n* two\n+ three\n  - nested\n1. first\n\n> quoted\n\n---\nend",
      ),
    ).toBe("*Opening hours*\n\n*Weekdays*\n\n• one\n• two\n• three\n  • nested\n1. first\n\n> quoted\n\nend");
  });

  it("does not invent emphasis from words with underscores or arithmetic", () => {
    expect(toWhatsAppText("snake_case_name and 2*3*4 and a * b")).toBe("snake_case_name and 2*3*4 and a * b");
  });

  it("closes a code block the answer left open", () => {
    expect(toWhatsAppText("```\nunfinished")).toBe("```\nunfinished\n```");
  });
});

describe("toTelegramHtml", () => {
  it("turns emphasis, code and links into the tags the Bot API lists", () => {
    expect(toTelegramHtml("**bold**, *italic*, ~~strike~~, `code`, [link](https://x.example/?a=1&b=2)")).toBe(
      '<b>bold</b>, <i>italic</i>, <s>strike</s>, <code>code</code>, <a href="https://x.example/?a=1&amp;b=2">link</a>',
    );
  });

  it("escapes <, > and & everywhere else, code included", () => {
    expect(toTelegramHtml("1 < 2 & 3 > 2 <script>")).toBe("1 &lt; 2 &amp; 3 &gt; 2 &lt;script&gt;");
    expect(toTelegramHtml("```html\n<b>&amp;</b>\n```")).toBe(
      '<pre><code class="language-html">&lt;b&gt;&amp;amp;&lt;/b&gt;</code></pre>',
    );
    expect(toTelegramHtml('[say "hi"](https://x.example/"q")')).toBe(
      '<a href="https://x.example/&quot;q&quot;">say "hi"</a>',
    );
  });

  it("keeps a URL's own brackets inside the link", () => {
    expect(toTelegramHtml("[Mole](https://en.wikipedia.org/wiki/Mole_(sauce))")).toBe(
      '<a href="https://en.wikipedia.org/wiki/Mole_(sauce)">Mole</a>',
    );
  });

  it("keeps a link with a scheme Telegram refuses as visible text, not a tag", () => {
    expect(toTelegramHtml("[click](javascript:alert(1))")).not.toContain("<a");
  });

  it("makes headings bold, lists bulleted and quotes blockquotes", () => {
    expect(toTelegramHtml("# Hours\n\n- Mon\n- Tue\n\n> closed on\n> holidays")).toBe(
      "<b>Hours</b>\n\n• Mon\n• Tue\n\n<blockquote>closed on\nholidays</blockquote>",
    );
  });

  it("produces HTML Telegram's parser accepts, for awkward input too", () => {
    const awkward = [
      "a <b> tag that is not ours & an ampersand",
      "**unclosed bold and `unclosed code",
      "```\nunterminated <code>",
      "[broken link](",
      "> quote with **bold** and <",
      "mixed *italic **bold** italic*",
      "emoji 😀 & <3",
      "https://x.example/path_with_underscores_ and **bold**",
    ];
    for (const md of awkward) {
      const html = toTelegramHtml(md);
      expect(parseTelegramHtml(html), `${md} → ${html}`).not.toHaveProperty("error");
    }
  });
});

describe("splitting and converting a long answer", () => {
  const answer = Array.from(
    { length: 120 },
    (_, i) =>
      `## Item ${i}\n\nThe **price** is ${i} € & [details](https://shop.example.com/items/${i}) say *more* about <this>.`,
  ).join("\n\n");

  it("gives WhatsApp messages of at most 4,096 characters, each with balanced formatting", () => {
    const parts = toWhatsAppMessages(answer);
    expect(parts.length).toBeGreaterThan(1);
    for (const p of parts) {
      expect(p.length).toBeLessThanOrEqual(4096);
      expect(p).not.toContain("**");
      expect(p).not.toContain("](");
    }
  });

  it("gives Telegram messages its parser accepts, each at most 4,096 visible characters", () => {
    const parts = toTelegramMessages(answer);
    expect(parts.length).toBeGreaterThan(1);
    for (const p of parts) {
      const parsed = parseTelegramHtml(p);
      if ("error" in parsed) throw new Error(parsed.error);
      expect(parsed.text.length).toBeLessThanOrEqual(4096);
    }
  });
});
