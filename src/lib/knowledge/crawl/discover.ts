import "server-only";
import { isToolWorldError, ToolWorldError } from "@/lib/errors";
import type { PageFetcher } from "@/lib/security/fetch-text";
import { parseRobots, type RobotsRules, robotsUrlOf } from "./robots";
import { walkSitemaps } from "./sitemap-walk";
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
  const unread = (why: string, timedOut = false) =>
    new ToolWorldError(
      `The sync did not run: the site's robots.txt ${why}, so no page was fetched this time. ` +
        "The pages indexed before stay searchable; the next sync tries again.",
      { timedOut },
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
      isToolWorldError(err) && err.timedOut,
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
  const { urls, notice } = await walkSitemaps(fetcher, source.sitemapUrl, onSite, limit);
  return { robotsTxt, robots, urls, followLinks: true, notice };
}
