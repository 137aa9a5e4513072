import "server-only";
import { Readability } from "@mozilla/readability";
import { parseHTML } from "linkedom";
import { collapse, domSections } from "./dom-sections";
import { scanMarkup } from "./markup-scan";
import { robotsDirectives } from "./robots-directives";
import { type Deadline, type ExtractedDocument, type ExtractLimits, refusal, type Section } from "./types";

// A web page's main content: the page's own `<main>` (or its one `<article>`) when it marks one, else what
// Mozilla's Readability (Firefox Reader View) finds, else the body; navigation, headers, footers, asides,
// cookie and consent banners, dialogs, breadcrumbs, skip links and hidden elements removed first.

type Doc = ReturnType<typeof parseHTML>["document"];
type El = NonNullable<ReturnType<Doc["querySelector"]>>;

const BOILERPLATE_SELECTORS = [
  "nav",
  "aside",
  "footer",
  "dialog",
  "[role=navigation]",
  "[role=banner]",
  "[role=contentinfo]",
  "[role=complementary]",
  "[role=search]",
  "[role=dialog]",
  "[role=alertdialog]",
  "[hidden]",
  "[aria-hidden=true]",
].join(",");

// Class or id words that name a banner, a consent box, a breadcrumb trail or a share bar, whatever the
// framework (OneTrust, Cookiebot, cookieconsent, USWDS…).
const BOILERPLATE_WORD =
  /(^|[-_])(cookies?|consent|gdpr|onetrust|cookiebot|cc-window|cmp|breadcrumbs?|skipnav|skip-link|skip-to-content|usa-banner|share-?bar|social-share)([-_]|$)/i;

/** The page's declared language as a lower-case BCP 47 tag, or null. */
function declaredLang(document: Doc): string | null {
  const raw =
    document.documentElement?.getAttribute("lang") ||
    document.querySelector("meta[http-equiv=content-language i]")?.getAttribute("content") ||
    "";
  const tag = raw.split(",")[0]?.trim().toLowerCase().replace(/_/g, "-") ?? "";
  return /^[a-z]{2,3}(-[a-z0-9]{1,8})*$/.test(tag) ? tag : null;
}

function metaRobots(document: Doc): string[] {
  const contents: string[] = [];
  for (const meta of document.querySelectorAll("meta[name]")) {
    const name = meta.getAttribute("name")?.toLowerCase();
    if (name === "robots" || name === "michi-chat") contents.push(meta.getAttribute("content") ?? "");
  }
  return contents;
}

/** An absolute http(s) URL without its fragment, or null for anything else (mailto:, javascript:, junk). */
export function absoluteUrl(href: string | null | undefined, base: string): string | null {
  if (!href) return null;
  try {
    const u = new URL(href.trim(), base);
    if (u.protocol !== "http:" && u.protocol !== "https:") return null;
    u.hash = "";
    return u.href;
  } catch {
    return null;
  }
}

function pageLinks(document: Doc, base: string, max: number): string[] {
  const seen = new Set<string>();
  for (const a of document.querySelectorAll("a[href], area[href]")) {
    const url = absoluteUrl(a.getAttribute("href"), base);
    if (url) seen.add(url);
    if (seen.size >= max) break;
  }
  return [...seen];
}

function isBoilerplate(el: El): boolean {
  const words = `${el.getAttribute("class") ?? ""} ${el.getAttribute("id") ?? ""}`.split(/\s+/);
  return words.some((w) => w && BOILERPLATE_WORD.test(w));
}

function removeBoilerplate(document: Doc): void {
  for (const el of [...document.querySelectorAll(BOILERPLATE_SELECTORS)]) el.remove();
  // A header inside an article or main often holds the page's own title; the site header is outside.
  for (const el of [...document.querySelectorAll("header")]) if (!el.closest("main, article")) el.remove();
  for (const el of [...document.querySelectorAll("[class], [id]")]) if (isBoilerplate(el)) el.remove();
}

function textLength(el: El): number {
  return collapse(el.textContent ?? "").length;
}

// Share of the main content's letters that sit inside links, above which a page is a hub of links. Measured
// on the Login.gov copy: its link index page is at 0.84, every article at 0.32 or below.
const NAVIGATION_SHARE = 0.7;

function isNavigationOnly(root: El): boolean {
  const letters = (t: string | null) => (t ?? "").replace(/\s+/g, "").length;
  const all = letters(root.textContent);
  if (all === 0) return false;
  let linked = 0;
  for (const a of root.querySelectorAll("a")) linked += letters(a.textContent);
  return linked / all >= NAVIGATION_SHARE;
}

/** The author's own main-content element, when there is exactly one obvious candidate with text. */
function markedMain(document: Doc): El | null {
  const mains = [...document.querySelectorAll("main, [role=main]")];
  const candidates = mains.length > 0 ? mains : [...document.querySelectorAll("article")];
  if (candidates.length === 0 || (mains.length === 0 && candidates.length > 1)) return null;
  const best = candidates.reduce((a, b) => (textLength(b) > textLength(a) ? b : a));
  return textLength(best) >= 40 ? best : null;
}

function readabilityRoot(document: Doc): El | null {
  // Readability changes the document it reads; it reads the already cleaned one, which is not used after.
  const article = new Readability(document as unknown as Document, { charThreshold: 200 }).parse();
  if (!article?.content) return null;
  return parseHTML(`<!doctype html><html><body>${article.content}</body></html>`).document.body as El;
}

export type HtmlInput = { html: string; url: string; robotsHeader?: string[] };

export function extractHtml(
  input: HtmlInput,
  limits: ExtractLimits,
  clock: Deadline,
): Omit<ExtractedDocument, "hash"> {
  if (Buffer.byteLength(input.html, "utf8") > limits.maxHtmlBytes) {
    throw refusal(
      "too_large",
      `The page is larger than ${Math.round(limits.maxHtmlBytes / 1024 / 1024)} MB.`,
    );
  }
  const shape = scanMarkup(input.html);
  if (shape.elements > limits.maxElements) {
    throw refusal("too_large", `The page has more than ${limits.maxElements} elements.`);
  }
  if (shape.depth > limits.maxDepth) {
    throw refusal("too_large", `The page's elements are nested more than ${limits.maxDepth} levels deep.`);
  }
  const { document } = parseHTML(input.html);
  clock.check("parsing the page");
  const base =
    absoluteUrl(document.querySelector("base[href]")?.getAttribute("href"), input.url) ?? input.url;
  const { noindex, nofollow } = robotsDirectives(metaRobots(document), input.robotsHeader ?? []);
  const canonical = absoluteUrl(document.querySelector("link[rel~=canonical i]")?.getAttribute("href"), base);
  const links = nofollow ? [] : pageLinks(document, base, limits.maxLinks);
  const lang = declaredLang(document);
  const docTitle = collapse(document.querySelector("title")?.textContent ?? "") || null;

  removeBoilerplate(document);
  const root = markedMain(document) ?? readabilityRoot(document) ?? (document.body as El | null);
  clock.check("finding the main content");
  const heading = root?.querySelector("h1");
  const title = (heading && collapse(heading.textContent ?? "")) || docTitle;
  let sections: Section[] = [];
  if (root) {
    const found = domSections(root, limits.maxTextChars);
    if (found.truncated) throw refusal("too_much_text", "The page holds more text than the limit allows.");
    sections = found.sections;
  }
  return {
    title,
    lang,
    canonical,
    noindex,
    links,
    sections,
    navigationOnly: root ? isNavigationOnly(root) : false,
  };
}
