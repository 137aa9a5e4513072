import { describe, expect, it } from "vitest";
import { parseMarkdown } from "@/widget/markdown";
import { type MdElement, type MdNode, safeHref } from "@/widget/markdown-inline";
import { plainText } from "@/widget/markdown-text";

// The panel renders this tree with Preact: strings become text nodes, tags come from the closed MdTag list.
// So safety means: no tag outside the list, no attribute besides an https href, and hostile input survives
// only as visible text.
const ALLOWED = new Set(["p", "ul", "ol", "li", "strong", "em", "code", "pre", "a", "br"]);

function walk(nodes: MdNode[], visit: (n: Exclude<MdNode, string>) => void) {
  for (const n of nodes) {
    if (typeof n === "string") continue;
    visit(n);
    walk(n.c, visit);
  }
}

/** The HTML the panel's DOM would serialise to (text escaped as the DOM escapes it). */
function html(nodes: MdNode[]): string {
  const esc = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
  return nodes
    .map((n) => {
      if (typeof n === "string") return esc(n);
      if (n.t === "br") return "<br>";
      const attrs = n.t === "a" ? ` href="${n.href?.replace(/"/g, "&quot;")}"` : "";
      return `<${n.t}${attrs}>${html(n.c)}</${n.t}>`;
    })
    .join("");
}

const XSS_CORPUS = [
  "<script>alert(1)</script>",
  "<img src=x onerror=alert(1)>",
  "<svg onload=alert(1)>",
  '<iframe src="javascript:alert(1)"></iframe>',
  "[click](javascript:alert(1))",
  "[click](JaVaScRiPt:alert(1))",
  "[click](java\tscript:alert(1))",
  "[click](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
  "[click](vbscript:msgbox(1))",
  "[click](http://evil.example/)",
  "[click](//evil.example/x)",
  "[click](/relative)",
  '[click](https://ok.example/" onmouseover="alert(1))',
  "[x](https://ok.example/<script>)",
  "![tracker](https://evil.example/pixel.png)",
  '<a href="https://evil.example" onclick="alert(1)">x</a>',
  "**<b onmouseover=alert(1)>bold</b>**",
  "`<script>alert(1)</script>`",
  "```\n<script>alert(1)</script>\n```",
  "<style>body{background:url(https://evil.example/x)}</style>",
  '<object data="https://evil.example/x.swf"></object>',
  '<math><mi xlink:href="javascript:alert(1)">x</mi></math>',
  "&lt;script&gt;alert(1)&lt;/script&gt;",
  "[a](https://user:pass@evil.example/)",
  "https://ok.example/path?q=<script>",
  "<!-- comment --><img src=x>",
  "\u0000<script>alert(1)</script>",
  "[\u202etxt.exe](https://ok.example/)",
];

describe("markdown subset: hostile input", () => {
  for (const input of XSS_CORPUS) {
    it(`keeps ${JSON.stringify(input).slice(0, 60)} inert`, () => {
      const tree = parseMarkdown(input);
      walk(tree, (n) => {
        expect(ALLOWED.has(n.t)).toBe(true);
        const keys = Object.keys(n).sort();
        expect(keys).toEqual(n.t === "a" ? ["c", "href", "t"] : ["c", "t"]);
        if (n.t === "a") {
          const u = new URL(n.href as string);
          expect(u.protocol).toBe("https:");
          expect(u.username + u.password).toBe("");
        }
      });
      // Every "<" left in the serialised output is one of our own tags (text is escaped), and the only
      // attribute any of them carries is an https href.
      const out = html(tree);
      for (const [tag] of out.matchAll(/<[^>]*>/g))
        expect(tag).toMatch(/^<\/?(p|ul|ol|li|strong|em|code|pre|a|br)( href="https:\/\/[^"\s]*")?>$/);
    });
  }

  it("shows hostile HTML as the visible text it is", () => {
    const tree = parseMarkdown("Hello <img src=x onerror=alert(1)> there");
    expect(plainText(tree)).toBe("Hello <img src=x onerror=alert(1)> there");
    expect(html(tree)).toBe("<p>Hello &lt;img src=x onerror=alert(1)&gt; there</p>");
  });

  it("drops the target of a non-https link but keeps its words", () => {
    expect(html(parseMarkdown("[our menu](javascript:alert(1))"))).toBe("<p>our menu</p>");
    expect(html(parseMarkdown("[plain](http://insecure.example/)"))).toBe("<p>plain</p>");
  });

  it("has no image node: an image becomes its alt text, and no URL is fetched", () => {
    const tree = parseMarkdown("![a cat](https://cats.example/cat.png)");
    expect(tree).toEqual([{ t: "p", c: ["a cat"] }]);
  });

  it("survives pathological nesting and length without blowing up", () => {
    const deep = `${"*".repeat(5000)}x${"*".repeat(5000)}`;
    expect(() => parseMarkdown(deep)).not.toThrow();
    expect(() => parseMarkdown("[".repeat(10_000))).not.toThrow();
    expect(() => parseMarkdown("_a ".repeat(10_000))).not.toThrow();
    // Unmatched delimiters stay literal text.
    expect(plainText(parseMarkdown("*a _b ".repeat(200)))).toBe("*a _b ".repeat(200).trim());
  });
});

describe("markdown subset: what it renders", () => {
  it("paragraphs and line breaks", () => {
    expect(html(parseMarkdown("one\ntwo\n\nthree"))).toBe("<p>one<br>two</p><p>three</p>");
  });

  it("emphasis, strong and inline code, leaving snake_case and lone stars alone", () => {
    expect(html(parseMarkdown("**open** until *six*, see `hours_json`"))).toBe(
      "<p><strong>open</strong> until <em>six</em>, see <code>hours_json</code></p>",
    );
    expect(html(parseMarkdown("use snake_case_names and 2 * 3 * 4"))).toBe(
      "<p>use snake_case_names and 2 * 3 * 4</p>",
    );
  });

  it("bullet and numbered lists", () => {
    expect(html(parseMarkdown("Hours:\n- Mon 8-18\n- Sat 9-15\n\n1. first\n2. second"))).toBe(
      "<p>Hours:</p><ul><li>Mon 8-18</li><li>Sat 9-15</li></ul><ol><li>first</li><li>second</li></ol>",
    );
  });

  it("https links, written or bare, without trailing punctuation", () => {
    expect(html(parseMarkdown("See [the map](https://maps.example/cafe)."))).toBe(
      '<p>See <a href="https://maps.example/cafe">the map</a>.</p>',
    );
    expect(html(parseMarkdown("Book at https://book.example/table."))).toBe(
      '<p>Book at <a href="https://book.example/table">https://book.example/table</a>.</p>',
    );
  });

  it("headings become bold paragraphs and fenced code keeps its text", () => {
    expect(html(parseMarkdown("## Menu\n```\na < b\n```"))).toBe(
      "<p><strong>Menu</strong></p><pre><code>a &lt; b</code></pre>",
    );
  });

  it("renders a half-streamed answer without losing text", () => {
    expect(plainText(parseMarkdown("We are **open"))).toBe("We are **open");
    expect(plainText(parseMarkdown("See [the map](https://maps"))).toBe("See [the map](https://maps");
  });
});

describe("safeHref", () => {
  it("accepts https only and normalises it", () => {
    expect(safeHref("https://Example.com/a b")).toBeNull();
    expect(safeHref("https://Example.com/a")).toBe("https://example.com/a");
    for (const bad of [
      "http://x.example",
      "javascript:alert(1)",
      "//x.example",
      "/x",
      "mailto:a@b.c",
      "https://",
    ])
      expect(safeHref(bad)).toBeNull();
  });
});

describe("pipe tables", () => {
  it("keeps a short cell with a number on one line (a price never wraps), and leaves prose cells free", () => {
    const [t] = parseMarkdown(
      "| Dish | Price | Note |\n| --- | ---: | --- |\n| Soup of the day | 4.50 € | served until the kitchen closes at 21:00 tonight |",
    );
    const cells = (t as { c: { c: { c: { c: unknown[] }[] }[] }[] }).c[1]!.c[0]!.c.map((td) => td.c[0]);
    expect(cells).toEqual([
      "Soup of the day",
      "4.50\u00a0€",
      "served until the kitchen closes at 21:00 tonight",
    ]);
  });

  it("renders a GitHub-style table with inline Markdown in its cells, and text stays text", () => {
    const nodes = parseMarkdown(
      "Hours:\n\n| Day | Opens |\n| --- | :-: |\n| Mon | **8:00** |\n| Tue | <img src=x onerror=alert(1)> \\| late |",
    );
    expect(nodes[1]).toEqual({
      t: "table",
      c: [
        {
          t: "thead",
          c: [
            {
              t: "tr",
              c: [
                { t: "th", c: ["Day"] },
                { t: "th", c: ["Opens"] },
              ],
            },
          ],
        },
        {
          t: "tbody",
          c: [
            {
              t: "tr",
              c: [
                { t: "td", c: ["Mon"] },
                { t: "td", c: [{ t: "strong", c: ["8:00"] }] },
              ],
            },
            {
              t: "tr",
              c: [
                { t: "td", c: ["Tue"] },
                { t: "td", c: ["<img src=x onerror=alert(1)> | late"] },
              ],
            },
          ],
        },
      ],
    });
  });

  it("is no table without a matching delimiter row; extra cells are dropped, missing ones left empty", () => {
    expect(parseMarkdown("a | b\n---")[0]).toMatchObject({ t: "p" });
    expect(parseMarkdown("a | b\nc | d")[0]).toMatchObject({ t: "p" });
    const t = parseMarkdown("| a | b |\n|---|---|\n| 1 | 2 | 3 |\n| 4 |") as MdElement[];
    const rows = ((t[0] as MdElement).c[1] as MdElement).c as MdElement[];
    expect(rows.map((r) => r.c.length)).toEqual([2, 2]);
    expect(plainText(t)).toBe("a\tb\t\n1\t2\t\n4");
  });
});
