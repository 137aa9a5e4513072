import "server-only";
import { isToolWorldError, ToolWorldError } from "@/lib/errors";
import type { PageFetcher } from "@/lib/security/fetch-text";
import { parseRobots, type RobotsRules, robotsUrlOf } from "./robots";
import { parseSitemap } from "./sitemap";
import { normalizePageUrl } from "./urls";

// The start of a sync: robots.txt, then the sitemap (and the sitemaps an index names, two levels deep), giving
// the URLs to fetch. Without a sitemap the frontier is the start URL. Either way the crawl then grows
// breadth-first from the links of each page (page job): real sitemaps forget pages that every page links to.
// The sitemap's own entries are claimed first, so under the page cap they come before what links add.

export type Discovery = {
  robotsTxt: string;
  robots: RobotsRules;
  urls: string[];
  /** True when the pages' own links should be followed (with or without a sitemap). */
  followLinks: boolean;
  /** Why a sitemap gave nothing (shown on the Knowledge page). */
  notice: string | null;
};

const MAX_SITEMAPS = 50;
const SITEMAP_MAX_BYTES = 20 * 1024 * 1024;

/**
 * robots.txt's text, or "" when the site has none (any 4xx but 429: RFC 9309 §2.3.1.3, "unavailable", crawl
 * freely). A server error, 429, a timeout or a refusal throws instead: RFC 9309 §2.3.1.4 says to crawl nothing
 * then, and Google keeps what it indexed and its last good robots.txt until the file answers again
 * (https://developers.google.com/search/docs/crawling-indexing/robots/robots_txt#http-status-codes). Storing
 * a "disallow everything" here would make every page job drop its passages, emptying the live index because
 * the site had a bad minute; throwing lets the sync job retry, then end the run with the reason, touching nothing.
 */
export async function readRobots(
  fetcher: PageFetcher,
  anyUrl: string,
  onSite: (u: URL) => boolean,
): Promise<string> {
  const unread = (why: string) =>
    new ToolWorldError(
      `The sync did not run: the site's robots.txt ${why}, so no page was fetched this time. ` +
        "The pages indexed before stay searchable; the next sync tries again.",
    );
  let res: Awaited<ReturnType<PageFetcher["fetchPage"]>>;
  try {
    res = await fetcher.fetchPage(robotsUrlOf(anyUrl), {
      accept: "text/plain",
      onSite,
      maxBytes: 512 * 1024,
    });
  } catch (err) {
    throw unread(
      isToolWorldError(err) ? `could not be read (${err.message.toLowerCase()})` : "could not be read",
    );
  }
  if (res.kind === "ok") return res.body.toString("utf8");
  if (res.kind === "http" && res.status >= 400 && res.status < 500 && res.status !== 429) return "";
  if (res.kind === "http")
    throw unread(
      res.status === 429
        ? "answered HTTP 429 (too many requests)"
        : `answered HTTP ${res.status}${res.status >= 500 ? " (a server error)" : ""}`,
    );
  throw unread(res.kind === "refused" ? `could not be read (${res.message})` : "could not be read");
}

export async function discover(
  fetcher: PageFetcher,
  source: { startUrl: string | null; sitemapUrl: string | null },
  onSite: (u: URL) => boolean,
  limit: number,
): Promise<Discovery> {
  const first = source.sitemapUrl ?? source.startUrl;
  if (!first) throw new Error("a website source needs a start or sitemap URL");
  const robotsUrl = robotsUrlOf(first);
  const robotsTxt = await readRobots(fetcher, first, onSite);
  const robots = parseRobots(robotsUrl, robotsTxt);
  if (!source.sitemapUrl) {
    const start = normalizePageUrl(source.startUrl!);
    return { robotsTxt, robots, urls: start ? [start] : [], followLinks: true, notice: null };
  }
  const urls = new Set<string>();
  const queue = [source.sitemapUrl];
  const seen = new Set<string>();
  let notice: string | null = null;
  while (queue.length > 0 && seen.size < MAX_SITEMAPS && urls.size < limit) {
    const next = queue.shift()!;
    if (seen.has(next)) continue;
    seen.add(next);
    const res = await fetcher.fetchPage(next, {
      accept: "application/xml,text/xml;q=0.9,*/*;q=0.5",
      onSite,
      maxBytes: SITEMAP_MAX_BYTES,
    });
    if (res.kind !== "ok") {
      notice = `The sitemap ${next} could not be read (${res.kind === "http" ? `HTTP ${res.status}` : res.kind === "refused" ? res.message : "unchanged"})`;
      continue;
    }
    const parsed = parseSitemap(res.body.toString("utf8"));
    for (const s of parsed.sitemaps) if (seen.size + queue.length < MAX_SITEMAPS) queue.push(s);
    for (const p of parsed.pages) {
      const n = normalizePageUrl(p);
      if (n) urls.add(n);
    }
  }
  if (urls.size === 0 && !notice) notice = "The sitemap lists no pages";
  return { robotsTxt, robots, urls: [...urls], followLinks: true, notice };
}
