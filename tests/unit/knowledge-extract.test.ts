import { describe, expect, it } from "vitest";
import { isAppError } from "@/lib/errors";
import {
  DEFAULT_LIMITS,
  type ExtractedDocument,
  type ExtractFailureReason,
  extractDocument,
  extractFailureError,
} from "@/lib/knowledge/extract";
import { logingovDir, sitePages } from "../support/knowledge-sites";
import { writePdf } from "../support/pdf-writer";
import { writeDocx } from "../support/zip-writer";

const ORIGIN = "https://localhost:8441";
const DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document";

async function extract(input: Parameters<typeof extractDocument>[0]): Promise<ExtractedDocument> {
  const result = await extractDocument(input);
  if (!result.ok) throw new Error(`${result.reason}: ${result.message}`);
  return result.doc;
}

const allText = (doc: ExtractedDocument) =>
  doc.sections.map((s) => `${s.headingPath.join(" > ")}\n${s.text}`).join("\n");

const dir = logingovDir();

describe.skipIf(!dir)("the real Login.gov help centre", () => {
  const pages = dir ? sitePages(dir) : [];
  const page = (p: string) => pages.find((x) => x.path === p)?.html ?? "";

  it("keeps a help article's own text under its headings, without the site's header, navigation and footer", async () => {
    const doc = await extract({
      html: page("/help/trouble-signing-in/why-is-my-account-locked.html"),
      url: `${ORIGIN}/help/trouble-signing-in/why-is-my-account-locked.html`,
    });
    expect(doc.title).toBe("Why is my account locked?");
    expect(doc.lang).toBe("en");
    const heads = doc.sections.map((s) => s.headingPath);
    expect(heads).toContainEqual([
      "Why is my account locked?",
      "If your account was locked during identity verification:",
    ]);
    const text = allText(doc);
    expect(text).toContain("You'll need to wait six hours before you can try to verify your identity again.");
    for (const boilerplate of [
      "Skip to main content",
      "An official website of the United States government",
      "No FEAR Act",
      "Sign in to manage your account",
      "Español",
      "International phone number support",
    ]) {
      expect(text).not.toContain(boilerplate);
    }
  });

  it("lists the page's links absolute and fragment-free, navigation included, each once", async () => {
    const doc = await extract({
      html: page("/help/trouble-signing-in/why-is-my-account-locked.html"),
      url: `${ORIGIN}/help/trouble-signing-in/why-is-my-account-locked.html`,
    });
    expect(doc.links).toContain(`${ORIGIN}/help/trouble-signing-in/international-phone-number-support.html`);
    expect(doc.links).toContain(`${ORIGIN}/policy/messaging-terms-and-conditions.html`);
    expect(doc.links).toContain(`${ORIGIN}/es/help/trouble-signing-in/why-is-my-account-locked.html`);
    expect(doc.links.every((l) => /^https?:\/\//.test(l) && !l.includes("#"))).toBe(true);
    expect(new Set(doc.links).size).toBe(doc.links.length);
  });

  it("reads the canonical link of the duplicate page and the language of the Spanish pages", async () => {
    const dup = await extract({
      html: page("/help/forgot-password.html"),
      url: `${ORIGIN}/help/forgot-password.html`,
    });
    expect(dup.canonical).toBe(`${ORIGIN}/help/trouble-signing-in/forgot-your-password.html`);
    const es = await extract({
      html: page("/es/help/trouble-signing-in/forgot-your-password.html"),
      url: `${ORIGIN}/es/help/trouble-signing-in/forgot-your-password.html`,
    });
    expect(es.lang).toBe("es");
    expect(es.canonical).toBeNull();
  });

  it("leaves out sections that are only lists of links, such as Related articles", async () => {
    const url = `${ORIGIN}/help/trouble-signing-in/why-is-my-account-locked.html`;
    const doc = await extract({ html: page("/help/trouble-signing-in/why-is-my-account-locked.html"), url });
    expect(doc.sections.map((s) => s.headingPath.at(-1))).not.toContain("Related articles");
    // A paragraph with a link in it stays: only sections made of links go.
    expect(allText(doc)).toContain("When you add photos of your ID, make sure that your name");
  });

  it("marks the help centre's link index as navigation only, and no article", async () => {
    const hubs: string[] = [];
    for (const p of pages)
      if ((await extract({ html: p.html, url: ORIGIN + p.path })).navigationOnly) hubs.push(p.path);
    expect(hubs).toEqual(["/help.html"]);
  });

  it("leaves the shared footer and header out of every page", async () => {
    for (const p of pages) {
      const doc = await extract({ html: p.html, url: ORIGIN + p.path });
      const text = allText(doc);
      expect(text, p.path).not.toContain("Office of the Inspector General");
      expect(text, p.path).not.toContain("Skip to main content");
      expect(doc.title, p.path).toBeTruthy();
    }
  });
});

describe("HTML pages", () => {
  const url = "https://shop.example/help/returns";

  it("removes cookie banners, consent dialogs and hidden text, and falls back to Readability without <main>", async () => {
    const body = Array.from(
      { length: 6 },
      (_, i) =>
        `<p>Paragraph ${i} about returning shoes bought in our shop within thirty days of purchase.</p>`,
    ).join("");
    const html = `<html lang="fr-FR"><head><title>Returns | Shop</title></head><body>
      <div id="onetrust-consent-sdk"><p>We use cookies to improve your experience. Accept all</p></div>
      <div class="cookie-banner">Cookies help us</div>
      <div role="dialog"><p>Subscribe to our newsletter</p></div>
      <div class="layout"><div class="content"><h2>Returning shoes</h2>${body}<p hidden>secret hidden text</p></div></div>
      </body></html>`;
    const doc = await extract({ html, url });
    const text = allText(doc);
    expect(text).toContain("Paragraph 5 about returning shoes");
    expect(text).not.toMatch(/cookies|newsletter|secret hidden/i);
    expect(doc.lang).toBe("fr-fr");
    expect(doc.title).toBe("Returns | Shop");
  });

  it("honours noindex and nofollow, resolves links against <base>, drops mailto: and javascript:", async () => {
    const html = `<html><head><meta name="robots" content="noindex, nofollow"></head><body><main><p>Text long enough to be the main content of this page.</p><a href="/x">x</a></main></body></html>`;
    const doc = await extract({ html, url });
    expect(doc.noindex).toBe(true);
    expect(doc.links).toEqual([]);
    const html2 = `<html><head><base href="https://shop.example/docs/"><link rel="canonical" href="page#top"></head><body><main><p>Text long enough to be the main content of this page.</p><a href="a.html#s">a</a><a href="mailto:x@y.z">m</a><a href="javascript:void(0)">j</a><a href="https://other.example/">o</a></main></body></html>`;
    const doc2 = await extract({ html: html2, url });
    expect(doc2.noindex).toBe(false);
    expect(doc2.canonical).toBe("https://shop.example/docs/page");
    expect(doc2.links).toEqual(["https://shop.example/docs/a.html", "https://other.example/"]);
  });

  it("honours X-Robots-Tag for us or for every crawler, and ignores one addressed to another crawler", async () => {
    const html = `<main><p>Text long enough to be the main content of this page.</p><a href="/x">x</a></main>`;
    const header = async (robotsHeader: string[]) => extract({ html, url, robotsHeader });
    expect(await header(["noindex"])).toMatchObject({ noindex: true });
    expect(await header(["michi-chat: noindex, nofollow"])).toMatchObject({ noindex: true, links: [] });
    expect(await header(["googlebot: noindex", "unavailable_after: 25 Jun 2010 15:00:00 PST"])).toMatchObject(
      {
        noindex: false,
        links: ["https://shop.example/x"],
      },
    );
    const pdf = await extract({
      bytes: writePdf([[{ text: "draft" }]]),
      contentType: "application/pdf",
      url,
      robotsHeader: ["none"],
    });
    expect(pdf.noindex).toBe(true);
  });

  it("decodes bytes in the charset the Content-Type or the page names", async () => {
    const bytes = new Uint8Array(
      Buffer.from(
        "<html><body><main><h1>Caf\xe9 cr\xe8me</h1><p>Ouvert tous les jours de la semaine.</p></main></body></html>",
        "latin1",
      ),
    );
    const doc = await extract({ bytes, contentType: "text/html; charset=iso-8859-1", url });
    expect(doc.title).toBe("Café crème");
  });

  it("gives the same hash to the same content and another to changed content", async () => {
    const a = await extract({
      html: "<main><h1>Hours</h1><p>Open from nine to five every weekday.</p></main>",
      url,
    });
    const b = await extract({
      html: "<main><h1>Hours</h1><p>Open from nine to five every weekday.</p></main><footer>2026</footer>",
      url,
    });
    const c = await extract({
      html: "<main><h1>Hours</h1><p>Open from nine to six every weekday.</p></main>",
      url,
    });
    expect(a.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(b.hash).toBe(a.hash);
    expect(c.hash).not.toBe(a.hash);
  });

  it("refuses hostile markup before parsing it: endless nesting, too many elements; caps endless links", async () => {
    const deep = `<main>${"<div>".repeat(5000)}x${"</div>".repeat(5000)}</main>`;
    expect(await extractDocument({ html: deep, url })).toMatchObject({ ok: false, reason: "too_large" });
    const many = `<main>${"<span>a</span>".repeat(60_000)}</main>`;
    const refused = await extractDocument({ html: many, url });
    expect(refused).toMatchObject({ ok: false, reason: "too_large" });
    expect(refused.ok ? "" : refused.message).toContain("50000 elements");
    const hub = `<main><p>All our pages.</p>${Array.from({ length: 300 }, (_, i) => `<a href="/p${i}">${i}</a>`).join("")}</main>`;
    expect((await extract({ html: hub, url, limits: { maxLinks: 100 } })).links).toHaveLength(100);
  });

  it("keeps script and style text out, and does not count tags written inside scripts", async () => {
    const script = `<script>var t = "${"<div>".repeat(2000)}"; alert("hi")</script><style>.a{color:red}</style>`;
    const doc = await extract({
      html: `<html><head>${script}</head><body><main><h1>Menu</h1><p>Soup of the day.</p>${script}</main></body></html>`,
      url,
    });
    expect(allText(doc)).toBe("Menu\nSoup of the day.");
  });

  it("refuses a page over the size limit and a page that takes too long", async () => {
    const big = await extractDocument({
      html: `<p>${"a".repeat(2000)}</p>`,
      url,
      limits: { maxHtmlBytes: 1000 },
    });
    expect(big).toMatchObject({ ok: false, reason: "too_large" });
    const slow = await extractDocument({ html: "<main><p>text</p></main>", url, limits: { timeoutMs: -1 } });
    expect(slow).toMatchObject({ ok: false, reason: "timeout" });
  });
});

describe("PDF", () => {
  it("reads headings from the larger type and the title from the document information", async () => {
    const pdf = writePdf(
      [
        [
          { text: "Parking", size: 20 },
          { text: "Guests park for free in the garage under the hotel." },
          { text: "Electric cars", size: 15 },
          { text: "Two chargers are on level -1." },
        ],
        [{ text: "Breakfast", size: 20 }, { text: "Breakfast is served from 7 to 10 (weekends until 11)." }],
      ],
      { title: "Guest guide" },
    );
    const doc = await extract({
      bytes: pdf,
      contentType: "application/pdf",
      url: "https://hotel.example/guide.pdf",
    });
    expect(doc.title).toBe("Guest guide");
    expect(doc.sections).toEqual([
      { headingPath: ["Parking"], text: "Guests park for free in the garage under the hotel." },
      { headingPath: ["Parking", "Electric cars"], text: "Two chargers are on level -1." },
      { headingPath: ["Breakfast"], text: "Breakfast is served from 7 to 10 (weekends until 11)." },
    ]);
  });

  it("refuses a PDF with more pages than the limit, and bytes that are no PDF", async () => {
    const pdf = writePdf(Array.from({ length: 5 }, (_, i) => [{ text: `page ${i}` }]));
    expect(
      await extractDocument({
        bytes: pdf,
        contentType: "application/pdf",
        url: "https://a.example/a.pdf",
        limits: { maxPages: 4 },
      }),
    ).toMatchObject({ ok: false, reason: "too_many_pages" });
    const junk = new Uint8Array(Buffer.from("%PDF-1.4\nthis is not really a pdf"));
    expect(
      await extractDocument({ bytes: junk, contentType: "application/pdf", url: "https://a.example/b.pdf" }),
    ).toMatchObject({ ok: false, reason: "unreadable" });
  });
});

describe("DOCX", () => {
  it("maps Word's heading styles to heading paths", async () => {
    const docx = writeDocx([
      { text: "Group bookings", heading: 1 },
      { text: "Groups of ten or more book by phone." },
      { text: "Deposit", heading: 2 },
      { text: "A deposit of 20% holds the table." },
    ]);
    const doc = await extract({ bytes: docx, contentType: DOCX, url: "https://a.example/groups.docx" });
    expect(doc.title).toBe("Group bookings");
    expect(doc.sections).toEqual([
      { headingPath: ["Group bookings"], text: "Groups of ten or more book by phone." },
      { headingPath: ["Group bookings", "Deposit"], text: "A deposit of 20% holds the table." },
    ]);
  });

  it("refuses a zip bomb, whether it declares its real size or lies about it", async () => {
    const limits = { maxUnzippedBytes: 1024 * 1024 };
    const zeros = Buffer.alloc(4 * 1024 * 1024);
    const honest = writeDocx([{ text: "x" }], [{ name: "word/media/a.bin", data: zeros }]);
    const lying = writeDocx([{ text: "x" }], [{ name: "word/media/a.bin", data: zeros, declaredSize: 1000 }]);
    expect(lying.length).toBeLessThan(20_000);
    for (const bytes of [honest, lying]) {
      const result = await extractDocument({
        bytes,
        contentType: DOCX,
        url: "https://a.example/bomb.docx",
        limits,
      });
      expect(result).toMatchObject({ ok: false, reason: "zip_bomb" });
    }
    const many = writeDocx(
      [{ text: "x" }],
      Array.from({ length: 30 }, (_, i) => ({ name: `word/media/${i}.txt`, data: "x" })),
    );
    expect(
      await extractDocument({
        bytes: many,
        contentType: DOCX,
        url: "https://a.example/many.docx",
        limits: { maxZipEntries: 20 },
      }),
    ).toMatchObject({ ok: false, reason: "zip_bomb" });
  });

  it("bounds the XML the converter parses, not the media it never reads", async () => {
    const limits = { maxDocxMarkupBytes: 50_000 };
    const media = writeDocx(
      [{ text: "Menu" }],
      [{ name: "word/media/photo.bin", data: Buffer.alloc(200_000, 7) }],
    );
    expect(
      await extractDocument({ bytes: media, contentType: DOCX, url: "https://a.example/m.docx", limits }),
    ).toMatchObject({ ok: true });
    const xml = writeDocx(
      [{ text: "Menu" }],
      [{ name: "word/footer1.xml", data: `<x>${"a".repeat(100_000)}</x>` }],
    );
    expect(
      await extractDocument({ bytes: xml, contentType: DOCX, url: "https://a.example/x.docx", limits }),
    ).toMatchObject({ ok: false, reason: "too_large" });
  });

  it("refuses a file over the default 20 MB, and says why as the platform's error for an upload", async () => {
    const bytes = new Uint8Array(DEFAULT_LIMITS.maxInputBytes + 1);
    const result = await extractDocument({ bytes, contentType: DOCX, url: "https://a.example/big.docx" });
    expect(result).toMatchObject({ ok: false, reason: "too_large" });
    const statuses: [ExtractFailureReason, number][] = [
      ["too_large", 413],
      ["zip_bomb", 400],
      ["unsupported_type", 415],
    ];
    for (const [reason, status] of statuses) {
      const err = extractFailureError({ reason, message: "why" });
      expect(isAppError(err) && err.status).toBe(status);
      expect(err.details?.reason).toBe(reason);
    }
  });

  it("refuses a file that is no zip and the old binary .doc format", async () => {
    expect(
      await extractDocument({
        bytes: new Uint8Array(Buffer.from("not a zip")),
        contentType: DOCX,
        url: "https://a.example/x.docx",
      }),
    ).toMatchObject({ ok: false, reason: "unreadable" });
    const doc = await extractDocument({
      bytes: new Uint8Array(8),
      contentType: "application/msword",
      url: "https://a.example/x.doc",
    });
    expect(doc).toMatchObject({ ok: false, reason: "unsupported_type" });
    expect(doc.ok ? "" : doc.message).toContain("DOCX");
  });
});

describe("Markdown and plain text", () => {
  it("opens sections at ATX and setext headings, keeps fenced code as text and strips inline markup", async () => {
    const md = [
      "# Allergies",
      "",
      "We cook **without nuts** and list [every allergen](https://x.example/a).",
      "",
      "Gluten",
      "------",
      "",
      "```",
      "# not a heading",
      "```",
      "",
      "## Vegan *options*",
      "All desserts are vegan.",
    ].join("\n");
    const doc = await extract({
      bytes: new Uint8Array(Buffer.from(md)),
      contentType: "text/markdown",
      url: "https://a.example/allergies.md",
    });
    expect(doc.title).toBe("Allergies");
    expect(doc.sections).toEqual([
      { headingPath: ["Allergies"], text: "We cook without nuts and list every allergen." },
      { headingPath: ["Allergies", "Gluten"], text: "# not a heading" },
      { headingPath: ["Allergies", "Vegan options"], text: "All desserts are vegan." },
    ]);
  });

  it("takes plain text as one section, and sniffs the type from the name when none is given", async () => {
    const doc = await extract({
      bytes: new Uint8Array(Buffer.from("Line one.\r\n\r\n\r\n\r\nLine two.  \n")),
      contentType: null,
      url: "https://a.example/notes.txt",
    });
    expect(doc.sections).toEqual([{ headingPath: [], text: "Line one.\n\nLine two." }]);
    const pdf = await extractDocument({
      bytes: writePdf([[{ text: "hello" }]]),
      contentType: "application/octet-stream",
      url: "https://a.example/file",
    });
    expect(pdf.ok && pdf.doc.sections[0]?.text).toBe("hello");
    // An upload named by its bare file name, not a URL.
    const named = await extract({
      bytes: new Uint8Array(Buffer.from("# Menu\nSoup")),
      contentType: "text/plain",
      url: "menu.md",
    });
    expect(named.sections).toEqual([{ headingPath: ["Menu"], text: "Soup" }]);
  });
});
