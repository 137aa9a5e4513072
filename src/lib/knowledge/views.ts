import "server-only";
import type { TenantContext } from "@/lib/auth/access";
import { type AnswerRow, listAnswers } from "@/lib/db/queries/knowledge-answers";
import { listPages, type PageCounts, type PageRow, pageCounts } from "@/lib/db/queries/knowledge-pages";
import { getWebsiteSource, type SourceRow } from "@/lib/db/queries/knowledge-sources";
import { listUploads, type UploadRow, uploadedBytes, uploadQuota } from "@/lib/db/queries/knowledge-uploads";
import { getPackConfig } from "@/lib/db/queries/packs";
import { env } from "@/lib/env";
import { log } from "@/lib/log";
import { findPack } from "@/lib/tools/index";
import type { KnowledgeSearcher } from "@/lib/tools/knowledge-search";
import { definitionFor, runToolCall } from "@/lib/tools/runtime";
import { estimateTokens } from "@/lib/tools/tokens";
import { type Passage, type SearchResult, searchKnowledge } from "./search";
import { findingsOf, knowledgeSearchOptions } from "./searcher";
import { KNOWLEDGE_PACK } from "./sources";
import { type TestQuestionInput, testQueries } from "./test-queries";

// What the Knowledge page shows: the website source with its counts and run, its pages, the curated answers,
// and the test question (ranked passages with their scores, and exactly what the model would be handed).

export type KnowledgeView = {
  source: SourceRow | null;
  counts: PageCounts | null;
  pages: (PageRow & { chunks: number })[];
  answers: AnswerRow[];
  uploads: UploadRow[];
  /** Bytes of documents stored, and the business's quota. */
  uploadUse: { used: number; quota: number };
};

export async function loadKnowledgeView(
  ctx: TenantContext,
  opts: { search?: string } = {},
): Promise<KnowledgeView> {
  return ctx.db.forTenant(ctx.tenant.id, async (tx) => {
    const source = await getWebsiteSource(tx);
    return {
      source,
      counts: source ? await pageCounts(tx, source.id) : null,
      pages: source ? await listPages(tx, source.id, { search: opts.search, limit: 200 }) : [],
      answers: await listAnswers(tx),
      uploads: await listUploads(tx),
      uploadUse: { used: await uploadedBytes(tx), quota: await uploadQuota(tx, ctx.tenant.id) },
    };
  });
}

export type TestQuestionView = {
  /** The question as asked. */
  query: string;
  /** Every query the pack ran, the question first; a passage's `foundBy` indexes this list. */
  queries: string[];
  /** What the model gets: empty when the best passages fall below the relevance bar. */
  passages: Passage[];
  /** The best passages whatever the bar, and the share of the question's words the best of them holds. */
  ranked: Passage[];
  relevance: number;
  curated: { questions: string[]; answer: string } | null;
  /** The pack's result as the model would receive it (projected and capped), and its size. */
  modelSees: string;
  chars: number;
  tokens: number;
};

/**
 * Read-only (viewers may ask): the pack runs once, through the chat's own wrapper, with the question and the
 * other wordings as the model's `queries` (./test-queries.ts), and nothing is recorded. A string is the
 * question alone.
 */
export async function askTestQuestion(
  ctx: TenantContext,
  input: string | TestQuestionInput,
): Promise<TestQuestionView> {
  const queries = testQueries(typeof input === "string" ? { question: input } : input);
  const tenantId = ctx.tenant.id;
  // The pack runs once, through a searcher handed to it in its run context that keeps the full result (with
  // scores) for the page; the model's projection of it is the pack's own output.
  let found: SearchResult = { curated: null, passages: [], ranked: [], relevance: 0, corrected: "" };
  const knowledge: KnowledgeSearcher = async (tenant, queries, signal) => {
    found = await searchKnowledge(ctx.db, tenant, queries, knowledgeSearchOptions(signal));
    return findingsOf(found, queries);
  };
  const pack = findPack(KNOWLEDGE_PACK)!;
  const row = await ctx.db.forTenant(tenantId, (tx) => getPackConfig(tx, KNOWLEDGE_PACK));
  const config = { ...(row?.config ?? {}) } as Record<string, unknown>;
  const record = await runToolCall({
    call: { id: "knowledge_test", name: pack.id, arguments: JSON.stringify({ queries }) },
    enabled: [{ pack, config: config as never, definition: definitionFor(pack, config as never) }],
    ctx: {
      tenantId,
      conversationId: null,
      signal: new AbortController().signal,
      log: log().child({ tenantId }),
      knowledge,
    },
    timeoutMs: env().MICHI_TOOL_TIMEOUT_MS,
    maxChars: env().MICHI_TOOL_RESULT_MAX_CHARS,
  });
  return {
    query: queries[0]!,
    queries,
    passages: found.passages,
    ranked: found.ranked,
    relevance: found.relevance,
    curated: found.curated ? { questions: found.curated.questions, answer: found.curated.answer } : null,
    modelSees: record.result,
    chars: record.resultChars,
    tokens: estimateTokens(record.result),
  };
}
