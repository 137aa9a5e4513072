import "server-only";
import { assertRole, auditedTx, type TenantContext } from "@/lib/auth/access";
import type { TenantTx } from "@/lib/db/client";
import { deletePageChunks, getPage, updatePage } from "@/lib/db/queries/knowledge-pages";
import { getWebsiteSource, type SourceRow, saveWebsiteSource } from "@/lib/db/queries/knowledge-sources";
import { AppError } from "@/lib/errors";
import { type JobQueue, processQueue } from "@/lib/queue";
import { isUuid } from "@/shared/parse";
import { nextSyncAt } from "./site";
import { startSyncIn } from "./sync";

// The website source's use cases. Its settings are the search_knowledge pack's fields (saved on the Tools page,
// which calls applyPackConfig in its own transaction); the Knowledge page re-syncs and excludes pages.

export const KNOWLEDGE_PACK = "search_knowledge";

type PackConfig = Record<string, unknown>;

const list = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : []);

function settingsOf(config: PackConfig, operatorCap: number) {
  const url = typeof config.siteUrl === "string" ? config.siteUrl : null;
  const isSitemap = !!url && /\.xml(\.gz)?$/i.test(new URL(url).pathname);
  const schedule = config.schedule === "daily" || config.schedule === "off" ? config.schedule : "weekly";
  const cap = typeof config.pageCap === "number" ? config.pageCap : 500;
  return {
    startUrl: url && !isSitemap ? url : null,
    sitemapUrl: isSitemap ? url : null,
    includePatterns: list(config.include),
    excludePatterns: list(config.exclude),
    pageCap: Math.max(1, Math.min(cap, operatorCap)),
    schedule: schedule as "off" | "daily" | "weekly",
  };
}

async function queueOrNull(): Promise<JobQueue | null> {
  const q = processQueue();
  return q ? await q : null;
}

/**
 * Mirrors the pack's saved fields into the website source, in the Tools page's transaction. A changed address
 * or pattern list starts a sync (when the pack is on); a changed schedule only moves the next sync.
 */
export async function applyPackConfig(
  tx: TenantTx,
  p: { tenantId: string; config: PackConfig; enabled: boolean; actor: { id: string; email: string } | null },
  opts: { queue?: JobQueue | null; operatorCap?: number } = {},
): Promise<SourceRow | null> {
  if (typeof p.config.siteUrl !== "string") return null;
  const before = await getWebsiteSource(tx);
  const s = settingsOf(p.config, opts.operatorCap ?? 5000);
  const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
  const crawlChanged =
    !before ||
    before.startUrl !== s.startUrl ||
    before.sitemapUrl !== s.sitemapUrl ||
    !same(before.includePatterns, s.includePatterns) ||
    !same(before.excludePatterns, s.excludePatterns) ||
    before.pageCap !== s.pageCap;
  const scheduleChanged = !before || before.schedule !== s.schedule;
  if (!crawlChanged && !scheduleChanged && before.lastSyncAt) return before;
  const next = scheduleChanged || !before?.nextSyncAt ? nextSyncAt(s.schedule) : before.nextSyncAt;
  const source = await saveWebsiteSource(tx, p.tenantId, { ...s, nextSyncAt: next });
  const queue = opts.queue === undefined ? await queueOrNull() : opts.queue;
  if (p.enabled && queue && (crawlChanged || !before?.lastSyncAt))
    await startSyncIn(tx, queue, {
      tenantId: p.tenantId,
      sourceId: source.id,
      actor: p.actor,
      reason: "settings",
    });
  return source;
}

/** "Re-sync now" on the Knowledge page. */
export async function resyncNow(ctx: TenantContext, queue?: JobQueue): Promise<void> {
  assertRole(ctx, "admin");
  const q = queue ?? (await queueOrNull());
  if (!q) throw new AppError("db_unavailable", "The job queue is not running; try again in a moment.");
  await ctx.db.forTenant(ctx.tenant.id, async (tx) => {
    const source = await getWebsiteSource(tx);
    if (!source)
      throw new AppError(
        "conflict",
        "Add your website on the Tools page first (Your website and documents).",
      );
    await startSyncIn(tx, q, {
      tenantId: ctx.tenant.id,
      sourceId: source.id,
      actor: ctx.user,
      reason: "manual",
    });
  });
}

/** "Exclude this page": its chunks go now and it is never fetched again (until included again). */
export async function setPageExcluded(
  ctx: TenantContext,
  pageId: string,
  excluded: boolean,
): Promise<{ changed: boolean }> {
  assertRole(ctx, "admin");
  if (!isUuid(pageId)) throw new AppError("not_found", "This page is not in your knowledge.");
  return auditedTx(ctx, async (tx, record) => {
    const page = await getPage(tx, pageId);
    if (!page) throw new AppError("not_found", "This page is not in your knowledge.");
    if (page.excluded === excluded) return { changed: false };
    if (excluded) await deletePageChunks(tx, pageId);
    await updatePage(tx, pageId, {
      excluded,
      ...(excluded
        ? { status: "skipped", reason: "excluded", contentHash: null }
        : { status: "pending", reason: null }),
    });
    await record(excluded ? "knowledge.page_excluded" : "knowledge.page_included", {
      target: pageId,
      details: { url: page.url },
    });
    return { changed: true };
  });
}
