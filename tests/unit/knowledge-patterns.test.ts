import { describe, expect, it } from "vitest";
import { wantedByPatterns } from "@/lib/knowledge/crawl/urls";

// The Tools page's "Only these paths" / "Never these paths": a plain path means that page and everything
// below it (on a segment boundary, so /blog is not /blogroll); a `*` stands for any run of characters.

const on = (path: string) => `https://www.example.com${path}`;
function wanted(paths: string[], include: string[], exclude: string[] = []) {
  return paths.filter((p) => wantedByPatterns(on(p), include, exclude));
}

describe("wantedByPatterns", () => {
  const site = [
    "/",
    "/blog",
    "/blog/",
    "/blog/first-post",
    "/blog?page=2",
    "/blogroll",
    "/blog-news",
    "/about",
  ];

  it("a plain include is that path and below it, never a longer name that starts the same", () => {
    expect(wanted(site, ["/blog"])).toEqual(["/blog", "/blog/", "/blog/first-post", "/blog?page=2"]);
    // A trailing slash means the same section.
    expect(wanted(site, ["/blog/"])).toEqual(["/blog", "/blog/", "/blog/first-post", "/blog?page=2"]);
  });

  it("a plain exclude leaves the neighbours with a longer name in", () => {
    expect(wanted(site, [], ["/blog"])).toEqual(["/", "/blogroll", "/blog-news", "/about"]);
  });

  it("no include means the whole site, and / as an include means it too", () => {
    expect(wanted(site, [])).toEqual(site);
    expect(wanted(site, ["/"])).toEqual(site);
  });

  it("a * stands for anything, as the form's help says (/help/* is below /help, not /help itself)", () => {
    const paths = ["/help", "/help/", "/help/reset", "/help/a/b?x=1", "/helpdesk/a", "/blogroll"];
    expect(wanted(paths, ["/help/*"])).toEqual(["/help/", "/help/reset", "/help/a/b?x=1"]);
    expect(wanted(paths, ["/blog*"])).toEqual(["/blogroll"]);
    expect(wanted(["/docs/a.pdf", "/docs/a.pdf.html", "/docs/sub/b.pdf"], ["/docs/*.pdf"])).toEqual([
      "/docs/a.pdf",
      "/docs/sub/b.pdf",
    ]);
  });

  it("exclude wins over include, each on its own boundary", () => {
    const paths = [
      "/help",
      "/help/faq",
      "/help/internal",
      "/help/internal/rota",
      "/help/internals",
      "/about",
    ];
    expect(wanted(paths, ["/help"], ["/help/internal"])).toEqual(["/help", "/help/faq", "/help/internals"]);
  });

  it("a pattern with accents matches the page's encoded path", () => {
    expect(wanted(["/café/menu", "/cafés"], ["/café"])).toEqual(["/café/menu"]);
  });
});
