import "server-only";
import type { PageFetcher } from "@/lib/security/fetch-text";
import { scanSitemap } from "./sitemap";
import { normalizePageUrl } from "./urls";

// A sitemap and the sitemaps an index names, read one after the other under two bounds per sync: the pages
// taken (the caller's limit, the page cap and some room for pages that turn out excluded) and the bytes read
// across every sitemap of the sync. A site may list millions of URLs or name fifty 20 MB files; the sync reads
// what it can use, and the Knowledge page says what was left out rather than the sync silently taking less.

const MAX_SITEMAPS = 50;
const SITEMAP_MAX_BYTES = 20 * 1024 * 1024;
/** Bytes read (after gzip) across all the sitemaps of one sync. */
export const SITEMAP_BYTES_PER_SYNC = 60 * 1024 * 1024;

export type SitemapWalk = { urls: string[]; notice: string | null };

export async function walkSitemaps(
  fetcher: PageFetcher,
  sitemapUrl: string,
  onSite: (u: URL) => boolean,
  limit: number,
): Promise<SitemapWalk> {
  const urls = new Set<string>();
  const queue = [sitemapUrl];
  const seen = new Set<string>();
  const notices: string[] = [];
  let budget = SITEMAP_BYTES_PER_SYNC;
  const overBudget = (left: number) =>
    `The sitemaps hold more than one sync reads (${SITEMAP_BYTES_PER_SYNC / 1024 / 1024} MB in all), so ${left} of them were left out`;
  while (queue.length > 0 && seen.size < MAX_SITEMAPS) {
    const next = queue.shift()!;
    if (seen.has(next)) continue;
    if (budget <= 0) {
      notices.push(overBudget(queue.length + 1));
      break;
    }
    seen.add(next);
    const maxBytes = Math.min(SITEMAP_MAX_BYTES, budget);
    const res = await fetcher.fetchPage(next, {
      accept: "application/xml,text/xml;q=0.9,*/*;q=0.5",
      onSite,
      maxBytes,
    });
    if (res.kind === "refused" && res.reason === "too_large" && maxBytes < SITEMAP_MAX_BYTES) {
      notices.push(overBudget(queue.length + 1));
      break;
    }
    if (res.kind !== "ok") {
      notices.push(
        `The sitemap ${next} could not be read (${res.kind === "http" ? `HTTP ${res.status}` : res.kind === "refused" ? res.message : "unchanged"})`,
      );
      continue;
    }
    budget -= res.body.byteLength;
    const room = limit - urls.size;
    const scan = await scanSitemap(res.body, {
      maxPages: room,
      maxSitemaps: MAX_SITEMAPS - seen.size - queue.length,
    });
    queue.push(...scan.sitemaps);
    for (const p of scan.pages) {
      const n = normalizePageUrl(p);
      if (n) urls.add(n);
    }
    if (urls.size >= limit || (scan.truncated && scan.pages.length >= room)) {
      notices.push(`The sitemap lists more pages than one sync reads (${limit}), so the rest were left out`);
      break;
    }
    if (scan.truncated)
      notices.push(`The sitemap index names more than ${MAX_SITEMAPS} sitemaps, so the rest were left out`);
  }
  if (urls.size === 0 && notices.length === 0) notices.push("The sitemap lists no pages");
  return { urls: [...urls], notice: notices.length ? `${notices.join(". ")}.` : null };
}
