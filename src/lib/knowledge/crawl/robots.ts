import "server-only";
import robotsParser from "robots-parser";

// robots.txt as the crawler obeys it (RFC 9309, through robots-parser): the rules of the group for our user
// agent (`michi-chat`), else `*`. A missing robots.txt (4xx) allows everything; a server error while reading it
// means nothing is fetched this run and the rules of the last good read stay (crawl/discover.ts `readRobots`).
// One robots.txt speaks for one scheme+host+port only (./robots-book.ts keeps one per host a run touches).

export const CRAWLER_AGENT = "michi-chat";

export type RobotsRules = {
  allowed(url: string): boolean;
  sitemaps(): string[];
  /** Crawl-delay for our agent in seconds, when the site sets one. */
  crawlDelay(): number | undefined;
};

const UNRESERVED = /^[A-Za-z0-9\-._~]$/;

/** `%XX` of an unreserved character becomes the character (RFC 9309 §2.2.2); every other `%XX` upper case. */
function percentNormal(s: string): string {
  return s.replace(/%([0-9A-Fa-f]{2})/g, (_, hex: string) => {
    const ch = String.fromCharCode(Number.parseInt(hex, 16));
    return UNRESERVED.test(ch) ? ch : `%${hex.toUpperCase()}`;
  });
}

/** `.` and `..` segments resolved as a server resolves them, so no spelling climbs past a rule. */
function withoutDotSegments(path: string): string {
  const out: string[] = [];
  const segments = path.split("/");
  for (const [i, seg] of segments.entries()) {
    const last = i === segments.length - 1;
    if (seg === ".") {
      if (last) out.push("");
    } else if (seg === "..") {
      if (out.length > 1) out.pop();
      if (last) out.push("");
    } else out.push(seg);
  }
  return out.join("/") || "/";
}

/**
 * A URL's path and query as robots rules are compared with them: unreserved characters unescaped (so
 * `/k/%70rivate/` is `/k/private/`), other escapes in one case, runs of `/` collapsed and dot segments
 * resolved in the path (servers answer `/k//private/` and `/k/./private/` as `/k/private/`), the query kept.
 */
export function robotsPath(pathAndQuery: string): string {
  const q = pathAndQuery.indexOf("?");
  const path = q < 0 ? pathAndQuery : pathAndQuery.slice(0, q);
  const query = q < 0 ? "" : pathAndQuery.slice(q);
  const clean = withoutDotSegments(percentNormal(path).replace(/\/{2,}/g, "/"));
  return `${clean.startsWith("/") ? clean : `/${clean}`}${percentNormal(query)}`;
}

/** The rule lines' paths spelt the same way, so a rule written `/%7Euser/` meets `/~user/` too. */
function normalRules(text: string): string {
  return text.replace(
    /^(\s*(?:allow|disallow)\s*:\s*)([^#\s]*)/gim,
    (_, head: string, path: string) => `${head}${percentNormal(path).replace(/\/{2,}/g, "/")}`,
  );
}

export function parseRobots(robotsUrl: string, text: string | null): RobotsRules {
  const robots = robotsParser(robotsUrl, normalRules(text ?? ""));
  const origin = new URL(robotsUrl).origin;
  return {
    allowed: (url) => {
      const u = new URL(url);
      // A robots.txt never speaks for another host: a URL elsewhere is not "allowed by default" here.
      if (u.origin !== origin) return false;
      return robots.isAllowed(`${origin}${robotsPath(`${u.pathname}${u.search}`)}`, CRAWLER_AGENT) !== false;
    },
    sitemaps: () => robots.getSitemaps(),
    crawlDelay: () => robots.getCrawlDelay(CRAWLER_AGENT),
  };
}

export function robotsUrlOf(pageUrl: string): string {
  return new URL("/robots.txt", pageUrl).toString();
}
