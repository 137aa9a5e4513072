import "server-only";
import { sql } from "drizzle-orm";
import { rowsOf, type TenantTx } from "../client";

// What test questions are made from and what a test turn leaves behind, beside the questions and runs
// themselves (test-questions.ts): the site's indexed pages, rated-down answers, and a test turn's cleanup.

export type IndexedPage = { url: string; title: string; lang: string | null; headings: string[] };

/** The business's indexed web pages with their first headings: what the site seed asks about. */
export async function indexedPagesForTests(tx: TenantTx, limit = 300): Promise<IndexedPage[]> {
  const rows = await rowsOf<{ url: string; title: string; lang: string | null; headings: string[] | null }>(
    tx,
    sql`select p.url, p.title, p.lang,
          (select array_agg(h.heading_path order by h.first) from (
             select c.heading_path, min(c.ord) as first from knowledge_chunks c
             where c.page_id = p.id and c.heading_path <> '' group by c.heading_path
             order by first limit 3) h) as headings
        from knowledge_pages p join knowledge_sources s on s.id = p.source_id and s.kind = 'website'
        where p.status = 'indexed' and not p.excluded
        order by p.url limit ${limit}`,
  );
  return rows.map((r) => ({ ...r, headings: r.headings ?? [] }));
}

/** Visitor questions whose answer was rated down, newest first. */
export async function ratedDownQuestions(tx: TenantTx, limit = 100): Promise<string[]> {
  const rows = await rowsOf<{ question: string }>(
    tx,
    sql`select q.content as question from message_feedback f
        join messages a on a.id = f.message_id
        join lateral (select u.content from messages u
                      where u.conversation_id = a.conversation_id and u.role = 'user' and u.created_at <= a.created_at
                      order by u.created_at desc, u.id desc limit 1) q on true
        where f.rating = 'down'
        order by f.created_at desc limit ${limit}`,
  );
  return rows.map((r) => r.question);
}

/**
 * A test turn leaves nothing behind: its conversation (messages and tool runs go with it) is deleted and its
 * tokens are taken back out of the month's visitor usage, in the transaction that records them on the run.
 */
export async function forgetTestTurn(
  tx: TenantTx,
  v: {
    tenantId: string;
    conversationId: string;
    month: string;
    prompt: number;
    completion: number;
    estimated: number;
  },
): Promise<void> {
  await tx.execute(sql`delete from conversations where id = ${v.conversationId}`);
  if (v.prompt <= 0 && v.completion <= 0) return;
  await tx.execute(
    sql`update usage_monthly set
          prompt_tokens = greatest(0, prompt_tokens - ${v.prompt}),
          completion_tokens = greatest(0, completion_tokens - ${v.completion}),
          estimated_tokens = greatest(0, estimated_tokens - ${v.estimated})
        where tenant_id = ${v.tenantId} and month = ${v.month}`,
  );
}
