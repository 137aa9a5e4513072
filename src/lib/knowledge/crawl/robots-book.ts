import "server-only";
import { ToolWorldError } from "@/lib/errors";
import type { PageFetcher } from "@/lib/security/fetch-text";
import { readRobots } from "./discover";
import { parseRobots, type RobotsRules, robotsUrlOf } from "./robots";

// A run's robots book: the robots.txt of every host (scheme, host and port, RFC 9309 §2.3) the run touches,
// read the first time one of its pages or redirect hops is met and kept for the rest of the run, so a host's
// file is read once per run and process however many of its pages are fetched. The start host's file was
// already read by the sync job (and stored on the source): it is the book's first entry.

export type RobotsBook = {
  /** The rules for the URL's host; throws when its robots.txt cannot be read now (RFC 9309 §2.3.1.4). */
  rulesFor(url: string): Promise<RobotsRules>;
  /** Whether the URL may be fetched (the same, answered in one word). */
  allowed(url: string): Promise<boolean>;
};

const MAX_HOSTS = 200;
const MAX_RUNS = 32;

type Entry = { hosts: Map<string, Promise<RobotsRules>>; book: RobotsBook };

// Per fetcher (one per process in production, one per test instance), then per run; the oldest run goes first.
const books = new WeakMap<PageFetcher, Map<string, Entry>>();

export function robotsBookFor(
  fetcher: PageFetcher,
  runId: string,
  onSite: (u: URL) => boolean,
  start: { url: string; robotsTxt: string | null } | null,
): RobotsBook {
  const runs = books.get(fetcher) ?? new Map<string, Entry>();
  books.set(fetcher, runs);
  const known = runs.get(runId);
  if (known) return known.book;
  const hosts = new Map<string, Promise<RobotsRules>>();
  if (start)
    hosts.set(
      new URL(start.url).origin,
      Promise.resolve(parseRobots(robotsUrlOf(start.url), start.robotsTxt)),
    );
  const rulesFor = (url: string): Promise<RobotsRules> => {
    const origin = new URL(url).origin;
    const kept = hosts.get(origin);
    if (kept) return kept;
    const read = readRobots(fetcher, url, onSite).then(
      (text) => parseRobots(robotsUrlOf(url), text),
      () => {
        // Not kept: the job's retry, or the next page of this host, reads it again.
        hosts.delete(origin);
        throw new ToolWorldError(
          `The robots.txt of ${origin} could not be read, so nothing there was fetched this time`,
        );
      },
    );
    if (hosts.size >= MAX_HOSTS) hosts.delete(hosts.keys().next().value!);
    hosts.set(origin, read);
    return read;
  };
  const book: RobotsBook = { rulesFor, allowed: async (url) => (await rulesFor(url)).allowed(url) };
  if (runs.size >= MAX_RUNS) runs.delete(runs.keys().next().value!);
  runs.set(runId, { hosts, book });
  return book;
}
