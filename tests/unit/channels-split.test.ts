import { describe, expect, it } from "vitest";
import { splitMessage, TELEGRAM_TEXT_MAX, WHATSAPP_TEXT_MAX } from "@/lib/channels/split";

// A long answer arrives as several messages that each read well: cut between paragraphs, then sentences,
// then words, and never through a link, a URL, code or a bold/italic pair.

const words = (s: string) => s.replace(/```/g, " ").split(/\s+/).filter(Boolean);

describe("splitMessage", () => {
  it("leaves a message that fits alone (both channels stop at 4,096)", () => {
    expect(WHATSAPP_TEXT_MAX).toBe(4096);
    expect(TELEGRAM_TEXT_MAX).toBe(4096);
    const text = "x".repeat(4096);
    expect(splitMessage(text, 4096)).toEqual([text]);
    expect(splitMessage("  hello  ", 4096)).toEqual(["hello"]);
    expect(splitMessage("", 4096)).toEqual([]);
  });

  it("cuts between paragraphs first", () => {
    const a = "First paragraph. It has two sentences.";
    const b = "Second paragraph here.";
    const c = "Third.";
    expect(splitMessage(`${a}\n\n${b}\n\n${c}`, a.length + b.length + 3)).toEqual([`${a}\n\n${b}`, c]);
  });

  it("cuts between lines of a list before breaking a line", () => {
    const list = ["- one item that is long", "- two item that is long", "- three item that is long"].join(
      "\n",
    );
    expect(splitMessage(list, 50)).toEqual([
      "- one item that is long\n- two item that is long",
      "- three item that is long",
    ]);
  });

  it("then after a sentence, keeping its full stop", () => {
    const text = "We open at nine. We close at six on weekdays. Sundays we rest.";
    expect(splitMessage(text, 46)).toEqual([
      "We open at nine. We close at six on weekdays.",
      "Sundays we rest.",
    ]);
  });

  it("then between words, never inside one", () => {
    const text = "alpha beta gamma delta epsilon zeta eta theta";
    const parts = splitMessage(text, 12);
    for (const p of parts) expect(p.length).toBeLessThanOrEqual(12);
    expect(parts.join(" ")).toBe(text);
  });

  it("never cuts inside a Markdown link, a bare URL or inline code", () => {
    const link = "[our full opening hours page](https://shop.example.com/opening-hours?lang=en)";
    const text = `Hello there friend, see ${link} for the details.`;
    for (let max = link.length; max < text.length; max += 3) {
      const parts = splitMessage(text, max);
      expect(parts.some((p) => p.includes(link))).toBe(true);
    }
    const wiki = "[Mole](https://en.wikipedia.org/wiki/Mole_(sauce))";
    for (let max = wiki.length; max < wiki.length + 20; max++) {
      expect(splitMessage(`Read about ${wiki} today`, max).some((p) => p.includes(wiki))).toBe(true);
    }
    const url = "https://shop.example.com/a/very/long/path/to/the/page";
    for (const p of splitMessage(`Go to ${url} now please`, 60)) {
      if (p.includes("https")) expect(p).toContain(url);
    }
    const code = "`npm run build -- --filter web`";
    expect(splitMessage(`Run ${code} then wait`, 36).filter((p) => p.includes("`"))).toEqual([`Run ${code}`]);
  });

  it("never separates a formatting pair, Markdown or WhatsApp or Telegram HTML", () => {
    const cases = [
      "Please note **this bold warning here** before you go.",
      "Please note *this whatsapp bold here* before you go.",
      "Please note _this whatsapp italic here_ before you go.",
      "Please note ~this whatsapp strike here~ before you go.",
      'Please note <a href="https://x.io">the link</a> before you go.',
      "Please note <b>this telegram bold text</b> before you go.",
    ];
    for (const text of cases) {
      const parts = splitMessage(text, 40);
      const marks = (p: string) =>
        (p.match(/\*\*|(?<!\w)[*_~](?!\s)|(?<!\s)[*_~](?!\w)|<\/?[ab]\b/g) ?? []).length;
      for (const p of parts) expect(marks(p) % 2, `${text} → ${JSON.stringify(parts)}`).toBe(0);
    }
  });

  it("closes and reopens a code block that is longer than one message", () => {
    const lines = Array.from({ length: 40 }, (_, i) => `  line_${i} = compute(${i})`);
    const text = `Here is the script:\n\n\`\`\`\n${lines.join("\n")}\n\`\`\`\n\nDone.`;
    const parts = splitMessage(text, 300);
    expect(parts.length).toBeGreaterThan(2);
    for (const p of parts) {
      expect(p.length).toBeLessThanOrEqual(300);
      expect((p.match(/```/g) ?? []).length % 2).toBe(0);
    }
    // Indentation inside the code survives the cut.
    expect(parts.slice(1).every((p) => !p.startsWith("```") || p.startsWith("```\n  line_"))).toBe(true);
    expect(words(parts.join("\n"))).toEqual(words(text));
  });

  it("cuts a single word longer than a message, without splitting an emoji", () => {
    const text = "😀".repeat(10); // 20 UTF-16 units
    const parts = splitMessage(text, 5);
    for (const p of parts) {
      expect(p.length).toBeLessThanOrEqual(5);
      expect(p).not.toMatch(/[\uD800-\uDBFF]$/);
    }
    expect(parts.join("")).toBe(text);
  });

  it("keeps every part within the limit and every word, on a long real-looking answer", () => {
    const para = (i: number) =>
      `Paragraph ${i}: our **store** at [Main St](https://shop.example.com/stores/${i}) opens at ${i % 12}:00. ` +
      `Bring the _receipt_ and ask for \`code-${i}\`. More at https://shop.example.com/faq#q${i}.`;
    const text = Array.from({ length: 200 }, (_, i) => para(i)).join("\n\n");
    const parts = splitMessage(text, 4096);
    expect(parts.length).toBeGreaterThan(1);
    for (const p of parts) expect(p.length).toBeLessThanOrEqual(4096);
    expect(words(parts.join(" "))).toEqual(words(text));
    // Every cut fell between paragraphs.
    for (const p of parts) expect(p.endsWith(".")).toBe(true);
  });
});
