import "server-only";
import robotsParser from "robots-parser";

// robots.txt as the crawler obeys it (RFC 9309, through robots-parser): the rules of the group for our user
// agent (`michi-chat`), else `*`. A missing robots.txt (4xx) allows everything; a server error while reading it
// is treated as "disallow everything" for this run, as the RFC asks.

export const CRAWLER_AGENT = "michi-chat";

/** The text stored for "robots.txt could not be read": a full disallow. */
export const DISALLOW_ALL = "User-agent: *\nDisallow: /\n";

export type RobotsRules = {
  allowed(url: string): boolean;
  sitemaps(): string[];
  /** Crawl-delay for our agent in seconds, when the site sets one. */
  crawlDelay(): number | undefined;
};

export function parseRobots(robotsUrl: string, text: string | null): RobotsRules {
  const robots = robotsParser(robotsUrl, text ?? "");
  return {
    allowed: (url) => robots.isAllowed(url, CRAWLER_AGENT) !== false,
    sitemaps: () => robots.getSitemaps(),
    crawlDelay: () => robots.getCrawlDelay(CRAWLER_AGENT),
  };
}

export function robotsUrlOf(pageUrl: string): string {
  return new URL("/robots.txt", pageUrl).toString();
}
