import "server-only";
import robotsParser from "robots-parser";

// robots.txt as the crawler obeys it (RFC 9309, through robots-parser): the rules of the group for our user
// agent (`michi-chat`), else `*`. A missing robots.txt (4xx) allows everything; a server error while reading it
// means nothing is fetched this run and the rules of the last good read stay (crawl/discover.ts `readRobots`).

export const CRAWLER_AGENT = "michi-chat";

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
