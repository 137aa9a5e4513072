import "server-only";
import type { TenantTx } from "@/lib/db/client";
import { getTenantSettings } from "@/lib/db/queries/bot";
import {
  deletePage,
  deletePageChunks,
  findSameContent,
  getPage,
  NOT_FOUND,
  type PagePatch,
  type PageRow,
  updatePage,
} from "@/lib/db/queries/knowledge-pages";
import {
  countPageDone,
  getSource,
  lockRun,
  reserveFetchSlot,
  type SourceRow,
} from "@/lib/db/queries/knowledge-sources";
import { requestAutoTestRun } from "@/lib/db/queries/test-questions";
import { isToolWorldError } from "@/lib/errors";
import type { QueueJob } from "@/lib/queue";
import type { RobotsRules } from "./crawl/robots";
import { robotsBookFor } from "./crawl/robots-book";
import { hostStalled, noteStall } from "./crawl/stalls";
import { normalizePageUrl, wantedByPatterns } from "./crawl/urls";
import type { ExtractedDoc, KnowledgeDeps, PageJob } from "./deps";
import { robotsDirectives } from "./extract/robots-directives";
import { indexDocument } from "./index-document";
import { sameHost, siteChecker } from "./site";
import { enqueuePages, finishRun } from "./sync";

// One page of a run: checked against robots.txt and the business's patterns, fetched politely (one slot per
// host every intervalMs, conditional on its ETag/Last-Modified), extracted, and its chunks replaced in one
// transaction, only when the new version is complete. Whatever happens, the page is counted done once.

const MAX_DEPTH = 25;

/** What became of the page; applied in one transaction at the end. */
type Outcome =
  | { kind: "skip"; reason: string; dropChunks: boolean }
  | { kind: "unchanged"; etag?: string | null; lastModified?: string | null }
  | { kind: "missing"; status: number }
  | { kind: "failed"; status: number | null; reason: string }
  | {
      kind: "content";
      url: string;
      doc: ExtractedDoc;
      etag: string | null;
      lastModified: string | null;
      bytes: number;
    };

function transient(status: number): boolean {
  return status === 429 || status === 408 || status >= 500;
}

/**
 * The X-Robots-Tag header counts as the meta tag does (names other than ours ignored). Applied here rather
 * than in the extractor because the header belongs to the response, which the extraction worker never sees.
 */
function withHeaderDirectives(doc: ExtractedDoc, header: string[]): ExtractedDoc {
  if (header.length === 0) return doc;
  const { noindex, nofollow } = robotsDirectives([], header);
  return { ...doc, noindex: doc.noindex || noindex, links: nofollow ? [] : doc.links };
}

async function fetchOutcome(
  deps: KnowledgeDeps,
  source: SourceRow,
  page: PageRow,
  job: QueueJob<PageJob>,
  onSite: (u: URL) => boolean,
): Promise<Outcome> {
  const url = job.data.url;
  if (page.excluded) return { kind: "skip", reason: "excluded", dropChunks: true };
  // Off the site: no robots.txt to read there, the fetch would refuse it anyway.
  if (!onSite(new URL(url))) return { kind: "skip", reason: "off_domain", dropChunks: true };
  const first = source.sitemapUrl ?? source.startUrl;
  const book = robotsBookFor(
    deps.fetcher,
    job.data.runId,
    onSite,
    first ? { url: first, robotsTxt: source.robotsTxt } : null,
  );
  let robots: RobotsRules;
  try {
    robots = await book.rulesFor(url);
  } catch (err) {
    // This host's robots.txt is down: nothing of it is fetched, and what was indexed from it stays.
    if (job.retryCount < job.retryLimit) throw err;
    return {
      kind: "failed",
      status: null,
      reason: isToolWorldError(err) ? err.message : "robots.txt unread",
    };
  }
  if (!robots.allowed(url)) return { kind: "skip", reason: "robots", dropChunks: true };
  if (!wantedByPatterns(url, source.includePatterns, source.excludePatterns))
    return { kind: "skip", reason: "excluded", dropChunks: true };
  // A host that stopped answering earlier in this run is not waited on again for each of its pages.
  if (hostStalled(job.data.runId, url))
    return { kind: "failed", status: null, reason: "The site stopped answering during this sync" };
  const delay = Math.min(10_000, Math.max(deps.intervalMs, (robots.crawlDelay() ?? 0) * 1000));
  const wait = await deps.db.forTenant(source.tenantId, (tx) => reserveFetchSlot(tx, source.id, delay));
  if (wait > 0) await deps.sleep(wait);
  const conditional = page.status === "indexed";
  let res: Awaited<ReturnType<KnowledgeDeps["fetcher"]["fetchPage"]>>;
  try {
    res = await deps.fetcher.fetchPage(url, {
      onSite,
      etag: conditional ? page.etag : null,
      lastModified: conditional ? page.lastModified : null,
      allowHop: (hop) => book.allowed(hop.toString()),
    });
  } catch (err) {
    // A try that ran out its time limit is not repeated in this run: a trickling site would take it again.
    const timedOut = isToolWorldError(err) && err.timedOut;
    if (timedOut) noteStall(job.data.runId, url);
    if (!timedOut && job.retryCount < job.retryLimit) throw err;
    return { kind: "failed", status: null, reason: isToolWorldError(err) ? err.message : "fetch failed" };
  }
  if (res.kind === "not_modified") return { kind: "unchanged" };
  if (res.kind === "refused")
    return res.reason === "blocked"
      ? { kind: "failed", status: null, reason: res.message }
      : { kind: "skip", reason: res.reason === "disallowed" ? "robots" : res.reason, dropChunks: true };
  if (res.kind === "http") {
    if (res.status === 404 || res.status === 410) return { kind: "missing", status: res.status };
    if (transient(res.status) && job.retryCount < job.retryLimit)
      throw new Error(`HTTP ${res.status} from ${url}`);
    return { kind: "failed", status: res.status, reason: `HTTP ${res.status}` };
  }
  const extracted = await deps.extract({ bytes: res.body, contentType: res.contentType, url: res.url });
  if (!extracted.ok) {
    const tooLarge = ["too_large", "too_much_text", "too_many_pages", "zip_bomb"].includes(extracted.reason);
    if (tooLarge) return { kind: "skip", reason: "too_large", dropChunks: true };
    if (extracted.reason === "unsupported_type")
      return { kind: "skip", reason: "not_html", dropChunks: true };
    return { kind: "failed", status: res.status, reason: extracted.message };
  }
  return {
    kind: "content",
    url: res.url,
    doc: withHeaderDirectives(extracted.doc, res.robotsTag ?? []),
    etag: res.etag,
    lastModified: res.lastModified,
    bytes: res.body.byteLength,
  };
}

async function storeContent(
  tx: TenantTx,
  deps: KnowledgeDeps,
  source: SourceRow,
  page: PageRow,
  o: Extract<Outcome, { kind: "content" }>,
  job: PageJob,
  onSite: (u: URL) => boolean,
): Promise<PagePatch> {
  const { doc } = o;
  const base: PagePatch = { etag: o.etag, lastModified: o.lastModified, missingCount: 0, httpStatus: 200 };
  // Links first: a noindex or duplicate page still leads to others. They resolve against the address the page
  // really came from (example.com redirecting to www.example.com), so the crawl follows that host: each hop of
  // the redirect was checked, and every link is checked again against the business's domains.
  if (job.follow && job.depth < MAX_DEPTH) {
    const links = doc.links
      .map((l) => normalizePageUrl(l))
      .filter((l): l is string => !!l && sameHost(l, o.url) && onSite(new URL(l)));
    await enqueuePages(
      tx,
      deps.queue,
      source,
      job.runId,
      links.map((url) => ({ url, depth: job.depth + 1 })),
      true,
    );
  }
  const canonical = doc.canonical ? normalizePageUrl(doc.canonical) : null;
  if (doc.noindex) {
    await deletePageChunks(tx, page.id);
    return { ...base, status: "skipped", reason: "noindex", contentHash: null };
  }
  // A canonical naming the address the redirect led to is this same page, not a duplicate of another.
  if (
    canonical &&
    canonical !== job.url &&
    canonical !== normalizePageUrl(o.url) &&
    onSite(new URL(canonical))
  ) {
    await deletePageChunks(tx, page.id);
    await enqueuePages(tx, deps.queue, source, job.runId, [{ url: canonical, depth: job.depth }], job.follow);
    return { ...base, status: "skipped", reason: "duplicate", canonicalUrl: canonical, contentHash: null };
  }
  if (doc.sections.length === 0) {
    await deletePageChunks(tx, page.id);
    return { ...base, status: "skipped", reason: "empty", contentHash: null };
  }
  const twin = await findSameContent(tx, source.id, page.id, doc.hash);
  if (twin) {
    await deletePageChunks(tx, page.id);
    return { ...base, status: "skipped", reason: "duplicate", canonicalUrl: twin.url, contentHash: doc.hash };
  }
  const indexed = await indexDocument(tx, deps, page, doc);
  return {
    ...base,
    title: (doc.title ?? "").slice(0, 300) || new URL(job.url).pathname,
    canonicalUrl: canonical,
    byteSize: o.bytes,
    ...indexed,
  };
}

/** Only the fields that differ, so an unchanged page costs no write of its own. */
function changes(page: PageRow, patch: PagePatch): PagePatch {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(patch)) {
    if (k === "indexed" || k === "fetched") {
      if (v) out[k] = v;
      continue;
    }
    if ((page as Record<string, unknown>)[k] !== v) out[k] = v;
  }
  return out as PagePatch;
}

export async function runPageJob(deps: KnowledgeDeps, job: QueueJob<PageJob>): Promise<void> {
  const { tenantId, sourceId, runId, pageId } = job.data;
  const found = await deps.db.forTenant(tenantId, async (tx) => ({
    source: await getSource(tx, sourceId),
    page: await getPage(tx, pageId),
    siteDomains: (await getTenantSettings(tx, tenantId))?.siteDomains ?? [],
  }));
  const { source, page } = found;
  if (!source || !page || source.runId !== runId || page.doneRun === runId) return;
  const onSite = siteChecker(found.siteDomains, deps.allowHosts);
  const outcome = await fetchOutcome(deps, source, page, job, onSite);
  await deps.db.forTenant(tenantId, async (tx) => {
    const locked = await lockRun(tx, sourceId, runId);
    const current = locked ? await getPage(tx, pageId) : null;
    // A newer run took over, or another delivery of this job finished first: nothing to add.
    if (!locked || !current || current.doneRun === runId) return;
    let patch: PagePatch;
    switch (outcome.kind) {
      case "skip":
        if (outcome.dropChunks) await deletePageChunks(tx, pageId);
        patch = { status: "skipped", reason: outcome.reason, contentHash: null };
        break;
      case "unchanged":
        patch = { missingCount: 0 };
        break;
      case "missing":
        if (current.missingCount + 1 >= 2) {
          await deletePage(tx, pageId);
          patch = {};
        } else if (current.status === "indexed")
          patch = { missingCount: current.missingCount + 1, httpStatus: outcome.status };
        // Never indexed (a sitemap entry or a link to nothing): it failed, not "pending" for ever; the
        // second miss removes it as it would an indexed page.
        else
          patch = {
            status: "failed",
            reason: NOT_FOUND,
            missingCount: current.missingCount + 1,
            httpStatus: outcome.status,
          };
        break;
      case "failed":
        // The last good version stays searchable; the page shows why this run could not refresh it.
        patch = {
          status: current.status === "indexed" ? "indexed" : "failed",
          reason: outcome.reason,
          httpStatus: outcome.status,
        };
        break;
      case "content":
        patch = await storeContent(tx, deps, locked, current, outcome, job.data, onSite);
        break;
    }
    const deleted = outcome.kind === "missing" && current.missingCount + 1 >= 2;
    if (!deleted) await updatePage(tx, pageId, { ...changes(current, patch), doneRun: runId });
    // What the bot can answer from changed: the business's test questions run again once the sync is over.
    const indexedBefore = current.status === "indexed";
    // A page indexed anew (indexDocument's `indexed` flag: its text differs) or one that left the index.
    const reindexed = outcome.kind === "content" && patch.indexed === true;
    const left =
      indexedBefore &&
      (deleted || outcome.kind === "skip" || (outcome.kind === "content" && patch.status === "skipped"));
    if (reindexed || left) {
      await requestAutoTestRun(tx, tenantId, "knowledge");
    }
    const last = await countPageDone(tx, sourceId, runId);
    if (last) await finishRun(tx, locked, runId);
  });
}
