import { describe, expect, it } from "vitest";
import { decodeXmlText, scanSitemap } from "@/lib/knowledge/crawl/sitemap";

// The sitemap scanner reads what sitemaps.org describes and what real sitemaps look like (entities in query
// strings, CDATA, prefixes, image extensions), and holds against what an attacker would send (a DOCTYPE with
// entities, 19 MB of empty elements, more entries than a sync takes).

const caps = { maxPages: 1000, maxSitemaps: 50 };
const scan = (xml: string, c = caps) => scanSitemap(Buffer.from(xml, "utf8"), c);
const urlset = (inner: string) =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${inner}</urlset>`;

describe("scanSitemap", () => {
  it("decodes the five XML entities and character references in a <loc>", async () => {
    const r = await scan(
      urlset(
        "<url><loc>https://example.com/search?q=coffee&amp;page=2</loc></url>" +
          "<url><loc> https://example.com/caf&#233;?a=&#x31;&amp;b=&lt;&gt;&quot;&apos; </loc></url>",
      ),
    );
    expect(r.pages).toEqual([
      "https://example.com/search?q=coffee&page=2",
      "https://example.com/café?a=1&b=<>\"'",
    ]);
  });

  it("keeps CDATA as written, skips comments, and reads prefixed elements", async () => {
    const r = await scan(
      `<sm:urlset xmlns:sm="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">` +
        "<!-- <url><loc>https://example.com/commented</loc></url> -->" +
        "<sm:url><sm:loc><![CDATA[https://example.com/a?x=1&amp;y=2]]></sm:loc>" +
        "<image:image><image:loc>https://example.com/photo.jpg</image:loc></image:image></sm:url>" +
        "<![CDATA[<url><loc>https://example.com/in-cdata</loc></url>]]>" +
        "</sm:urlset>",
    );
    expect(r.pages).toEqual(["https://example.com/a?x=1&amp;y=2"]);
  });

  it("reads a sitemap index's sitemaps, not its pages", async () => {
    const r = await scan(
      `<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>https://example.com/a.xml</loc><lastmod>2026-01-01</lastmod></sitemap><sitemap><loc>https://example.com/b.xml.gz</loc></sitemap></sitemapindex>`,
    );
    expect(r).toEqual({
      pages: [],
      sitemaps: ["https://example.com/a.xml", "https://example.com/b.xml.gz"],
      truncated: false,
    });
  });

  it("never expands a DTD's entities", async () => {
    const r = await scan(
      `<?xml version="1.0"?><!DOCTYPE urlset [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY ext SYSTEM "file:///etc/passwd">]>` +
        urlset("<url><loc>https://example.com/?x=&b;&ext;</loc></url>").replace(/^<\?xml[^>]*>\n/, ""),
    );
    expect(r.pages).toEqual(["https://example.com/?x=&b;&ext;"]);
  });

  it("stops at the cap and says it did", async () => {
    const many = Array.from({ length: 5000 }, (_, i) => `<url><loc>https://example.com/p${i}</loc></url>`);
    const r = await scan(urlset(many.join("")), { maxPages: 10, maxSitemaps: 50 });
    expect(r.pages).toHaveLength(10);
    expect(r.truncated).toBe(true);
  });

  it("gets through 19 MB of empty elements with nothing found, yielding to the event loop on the way", async () => {
    const body = Buffer.from(urlset("<url/><url></url>".repeat(1_200_000)));
    expect(body.byteLength).toBeGreaterThan(18 * 1024 * 1024);
    let ticks = 0;
    const timer = setInterval(() => {
      ticks += 1;
    }, 0);
    const r = await scanSitemap(body, caps);
    clearInterval(timer);
    expect(r).toEqual({ pages: [], sitemaps: [], truncated: false });
    expect(ticks).toBeGreaterThan(0);
  });

  it("decodes nothing else than the predefined entities", () => {
    expect(decodeXmlText("a&nbsp;b&#0;c&#xD800;d&amp;amp;")).toBe("a&nbsp;b&#0;c&#xD800;d&amp;");
  });
});
