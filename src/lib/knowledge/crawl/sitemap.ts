import "server-only";
import { XMLParser } from "fast-xml-parser";

// Sitemaps (sitemaps.org protocol): a <urlset> lists pages, a <sitemapindex> lists further sitemaps. Gzip is
// inflated by the page fetcher, under its size cap. Parsing is plain data, no entity expansion.

export type SitemapParse = { pages: string[]; sitemaps: string[] };

const parser = new XMLParser({
  ignoreAttributes: true,
  processEntities: false,
  removeNSPrefix: true,
  isArray: (name) => name === "url" || name === "sitemap",
});

function locOf(entry: unknown): string | null {
  if (!entry || typeof entry !== "object") return null;
  const loc = (entry as { loc?: unknown }).loc;
  return typeof loc === "string" ? loc.trim() : null;
}

export function parseSitemap(xml: string): SitemapParse {
  let doc: Record<string, unknown>;
  try {
    doc = parser.parse(xml) as Record<string, unknown>;
  } catch {
    return { pages: [], sitemaps: [] };
  }
  const urlset = doc.urlset as { url?: unknown[] } | undefined;
  const index = doc.sitemapindex as { sitemap?: unknown[] } | undefined;
  const pages = (urlset?.url ?? []).map(locOf).filter((u): u is string => !!u);
  const sitemaps = (index?.sitemap ?? []).map(locOf).filter((u): u is string => !!u);
  return { pages, sitemaps };
}
