import "server-only";
import { and, asc, eq, ilike, sql } from "drizzle-orm";
import type { TenantTx } from "../client";
import { rowsOf } from "../client";
import { knowledgeChunks, knowledgePages, type PageStatus } from "../schema";

// A source's pages and their chunks. A page's chunks change only in the transaction that stores its new,
// fully extracted version (replacePageChunks), so a sync that stops half-way leaves the live index as it was.

export type PageRow = typeof knowledgePages.$inferSelect;

/**
 * Claims URLs for a run: each page is claimed once per run, whichever instance or job finds it first. New
 * URLs become pending pages; pages the business excluded are never claimed. At most `max` are claimed.
 */
export async function claimPages(
  tx: TenantTx,
  p: {
    tenantId: string;
    sourceId: string;
    runId: string;
    urls: { url: string; depth: number }[];
    max: number;
  },
): Promise<{ id: string; url: string; depth: number }[]> {
  if (p.urls.length === 0 || p.max <= 0) return [];
  const urls = p.urls.map((u) => u.url);
  const depths = p.urls.map((u) => u.depth);
  return rowsOf(
    tx,
    sql`with wanted as (
          select u.url, min(u.depth) as depth, min(u.ord) as ord
          from unnest(${sql.param(urls)}::text[], ${sql.param(depths)}::int[]) with ordinality as u(url, depth, ord)
          group by u.url
        ),
        fresh as (
          select w.url, w.depth, w.ord from wanted w
          left join knowledge_pages p on p.source_id = ${p.sourceId} and p.url = w.url
          where p.id is null or (p.claimed_run is distinct from ${p.runId} and not p.excluded)
          order by w.ord limit ${p.max}
        )
        insert into knowledge_pages (tenant_id, source_id, url, depth, claimed_run)
        select ${p.tenantId}, ${p.sourceId}, url, depth, ${p.runId} from fresh
        on conflict (source_id, url) do update set claimed_run = excluded.claimed_run, depth = excluded.depth
        where knowledge_pages.claimed_run is distinct from excluded.claimed_run and not knowledge_pages.excluded
        returning id, url, depth`,
  );
}

/** How many of these URLs a run would still claim (to count what a page cap leaves out). */
export async function countUnclaimed(tx: TenantTx, sourceId: string, runId: string, urls: string[]) {
  if (urls.length === 0) return 0;
  const rows = await rowsOf<{ n: number }>(
    tx,
    sql`select count(*)::int as n from unnest(${sql.param(urls)}::text[]) as u(url)
        left join knowledge_pages p on p.source_id = ${sourceId} and p.url = u.url
        where p.id is null or (p.claimed_run is distinct from ${runId} and not p.excluded)`,
  );
  return rows[0]?.n ?? 0;
}

/** Every known page of the source that a new run should look at again (removed pages are found this way). */
export async function knownPageUrls(tx: TenantTx, sourceId: string): Promise<string[]> {
  const rows = await tx
    .select({ url: knowledgePages.url })
    .from(knowledgePages)
    .where(and(eq(knowledgePages.sourceId, sourceId), eq(knowledgePages.excluded, false)))
    .orderBy(asc(knowledgePages.depth), asc(knowledgePages.createdAt));
  return rows.map((r) => r.url);
}

export async function getPage(tx: TenantTx, id: string): Promise<PageRow | null> {
  const [row] = await tx.select().from(knowledgePages).where(eq(knowledgePages.id, id));
  return row ?? null;
}

export type PagePatch = Partial<
  Pick<
    PageRow,
    | "status"
    | "reason"
    | "httpStatus"
    | "etag"
    | "lastModified"
    | "contentHash"
    | "title"
    | "lang"
    | "canonicalUrl"
    | "byteSize"
    | "missingCount"
    | "doneRun"
    | "excluded"
  >
> & { fetched?: boolean; indexed?: boolean };

export async function updatePage(tx: TenantTx, id: string, patch: PagePatch): Promise<void> {
  const { fetched, indexed, ...rest } = patch;
  await tx
    .update(knowledgePages)
    .set({
      ...rest,
      ...(fetched ? { fetchedAt: sql`now()` } : {}),
      ...(indexed ? { indexedAt: sql`now()` } : {}),
    })
    .where(eq(knowledgePages.id, id));
}

export async function deletePage(tx: TenantTx, id: string): Promise<void> {
  await tx.delete(knowledgePages).where(eq(knowledgePages.id, id));
}

export async function deletePageChunks(tx: TenantTx, pageId: string): Promise<number> {
  const rows = await tx.delete(knowledgeChunks).where(eq(knowledgeChunks.pageId, pageId)).returning({
    id: knowledgeChunks.id,
  });
  return rows.length;
}

/** Another indexed page of the source with the same content: the page is then a duplicate of it. */
export async function findSameContent(tx: TenantTx, sourceId: string, pageId: string, hash: string) {
  const [row] = await tx
    .select({ id: knowledgePages.id, url: knowledgePages.url })
    .from(knowledgePages)
    .where(
      and(
        eq(knowledgePages.sourceId, sourceId),
        eq(knowledgePages.contentHash, hash),
        eq(knowledgePages.status, "indexed"),
        sql`${knowledgePages.id} <> ${pageId}`,
      ),
    )
    .limit(1);
  return row ?? null;
}

export type NewChunk = {
  ord: number;
  headingPath: string;
  text: string;
  hash: string;
  lang: string;
  words: string;
};

/**
 * Makes the page's chunks equal to `chunks`: chunks whose hash is unchanged stay (with their embedding), the
 * others are deleted or inserted. Returns how many rows were written.
 */
export async function replacePageChunks(
  tx: TenantTx,
  page: { tenantId: string; sourceId: string; pageId: string },
  chunks: NewChunk[],
): Promise<{ inserted: number; deleted: number; kept: number }> {
  const existing = await tx
    .select({ id: knowledgeChunks.id, hash: knowledgeChunks.hash, ord: knowledgeChunks.ord })
    .from(knowledgeChunks)
    .where(eq(knowledgeChunks.pageId, page.pageId));
  const byHash = new Map(existing.map((c) => [c.hash, c]));
  const wanted = new Set(chunks.map((c) => c.hash));
  const gone = existing.filter((c) => !wanted.has(c.hash)).map((c) => c.id);
  if (gone.length > 0)
    await tx.execute(sql`delete from knowledge_chunks where id = any(${sql.param(gone)}::uuid[])`);
  const fresh = chunks.filter((c) => !byHash.has(c.hash));
  for (const c of chunks) {
    const old = byHash.get(c.hash);
    if (old && old.ord !== c.ord)
      await tx.update(knowledgeChunks).set({ ord: c.ord }).where(eq(knowledgeChunks.id, old.id));
  }
  if (fresh.length > 0)
    await tx
      .insert(knowledgeChunks)
      .values(
        fresh.map((c) => ({ tenantId: page.tenantId, sourceId: page.sourceId, pageId: page.pageId, ...c })),
      );
  if (fresh.length > 0) await addWords(tx, page.tenantId, fresh.map((c) => c.words).join(" "));
  return { inserted: fresh.length, deleted: gone.length, kept: chunks.length - fresh.length };
}

/** Records the folded words of new text in the tenant's vocabulary (the typo corrector's word list). */
async function addWords(tx: TenantTx, tenantId: string, text: string): Promise<void> {
  await tx.execute(
    sql`insert into knowledge_words (tenant_id, word)
        select distinct ${tenantId}::uuid, w from regexp_split_to_table(michi_search_fold(${text}), '[^[:alnum:]]+') as w
        where length(w) between 3 and 40
        on conflict do nothing`,
  );
}

/** `found`: every page the site has, so not those that answered 404 or 410 (failed as "not_found"). */
export type PageCounts = Record<PageStatus, number> & { found: number; byReason: Record<string, number> };

/** The reason of a page that answered 404 or 410 and has no version indexed from before. */
export const NOT_FOUND = "not_found";

export async function pageCounts(tx: TenantTx, sourceId: string): Promise<PageCounts> {
  const rows = await rowsOf<{ status: PageStatus; reason: string | null; n: number }>(
    tx,
    sql`select status, reason, count(*)::int as n from knowledge_pages where source_id = ${sourceId}
        group by status, reason`,
  );
  const out: PageCounts = { pending: 0, indexed: 0, skipped: 0, failed: 0, found: 0, byReason: {} };
  for (const r of rows) {
    out[r.status] += r.n;
    if (r.reason !== NOT_FOUND) out.found += r.n;
    if (r.reason) out.byReason[r.reason] = (out.byReason[r.reason] ?? 0) + r.n;
  }
  return out;
}

export async function listPages(
  tx: TenantTx,
  sourceId: string,
  opts: { search?: string; limit?: number } = {},
): Promise<(PageRow & { chunks: number })[]> {
  const search = opts.search?.trim();
  const rows = await tx
    .select({
      page: knowledgePages,
      // Qualified by hand: drizzle writes a single-table select's columns bare, and a bare "id" inside the
      // subquery would be the chunk's own id (every count 0).
      chunks: sql<number>`(select count(*)::int from knowledge_chunks c where c.page_id = "knowledge_pages"."id")`,
    })
    .from(knowledgePages)
    .where(
      and(
        eq(knowledgePages.sourceId, sourceId),
        search ? ilike(knowledgePages.url, `%${search.replace(/[%_\\]/g, "\\$&")}%`) : undefined,
      ),
    )
    .orderBy(asc(knowledgePages.url))
    .limit(opts.limit ?? 200);
  return rows.map((r) => ({ ...r.page, chunks: r.chunks }));
}
