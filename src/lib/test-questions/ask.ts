import "server-only";
import { checkFigures, turnSources } from "@/lib/chat/figures/check";
import { runTurn, type TurnDeps } from "@/lib/chat/run-turn";
import type { TenantRow } from "@/lib/db/queries/tenants";
import { forgetTestTurn } from "@/lib/db/queries/test-question-sources";
import { usageMonth } from "@/lib/db/queries/usage";
import { isAppError } from "@/lib/errors";
import type { KnowledgeSearcher } from "@/lib/tools/knowledge-search";
import type { ChatEvent } from "@/shared/chat-events";
import type { Citation } from "@/shared/citations";
import { langOf } from "@/shared/languages";
import type { AnswerFacts } from "./expect";

// One test question asked the two ways a run can: through the real turn (the model, the packs, the figure
// check, exactly what a visitor would get) or, with no model configured, through the knowledge search alone.

export type Asked = { facts: AnswerFacts; tokens: number; refused?: string };

const HANDOFF_PACK = "request_human";
/** The visitor id of a test turn: no visitor's, and its conversation is deleted once the answer is read. */
const testVisitor = (runId: string) => `test-run:${runId}`;

/** Collects a turn's events as a channel would, keeping what a check needs. */
function collector() {
  const got = { text: "", held: null as string | null, citations: [] as Citation[], handoff: false };
  const got2 = { conversationId: null as string | null, error: null as string | null };
  const emit = (e: ChatEvent) => {
    if (e.type === "start") got2.conversationId = e.data.conversationId;
    else if (e.type === "delta") got.text += e.data.text;
    else if (e.type === "check" && e.data.action === "hold") got.held = e.data.text;
    else if (e.type === "done") got.citations = e.data.citations ?? [];
    else if (e.type === "handoff") got.handoff = true;
    else if (e.type === "error") got2.error = e.data.message;
  };
  return { got, meta: got2, sink: { emit, signal: new AbortController().signal } };
}

export async function askWithModel(
  deps: TurnDeps,
  tenant: TenantRow,
  runId: string,
  question: string,
): Promise<Asked> {
  const lang = langOf(tenant.bot.language);
  const c = collector();
  let result: Awaited<ReturnType<typeof runTurn>>;
  try {
    result = await runTurn(
      deps,
      {
        tenant,
        visitorId: testVisitor(runId),
        message: question,
        origin: "test-run",
        pageUrl: "",
        locale: tenant.bot.language ?? "en",
        // The run takes no visitor's rate points; one run at a time per business is its limit.
        limits: null,
        buttons: false,
      },
      c.sink,
    );
  } catch (err) {
    if (!isAppError(err)) throw err;
    const facts: AnswerFacts = { answer: "", citations: [], packs: [], handoff: false, figures: null, lang };
    return { facts, tokens: 0, refused: err.message };
  }
  const usage = result?.usage ?? { promptTokens: 0, completionTokens: 0 };
  const tokens = usage.promptTokens + usage.completionTokens;
  if (c.meta.conversationId) {
    await deps.db.forTenant(tenant.id, (tx) =>
      forgetTestTurn(tx, {
        tenantId: tenant.id,
        conversationId: c.meta.conversationId!,
        month: usageMonth(),
        prompt: usage.promptTokens,
        completion: usage.completionTokens,
        estimated: result?.usageEstimated ? tokens : 0,
      }),
    );
  }
  const runs = result?.runs ?? [];
  const ok = runs.filter((r) => r.outcome === "ok");
  // The figures of what the model wrote, whatever the bot's own figure check mode (off, mark, hold).
  const figures = result
    ? checkFigures(
        result.text,
        turnSources(runs, { message: question, instructions: tenant.bot.instructions }),
        lang,
      ).figures
    : null;
  return {
    tokens,
    ...(c.meta.error && !c.got.text ? { refused: c.meta.error } : {}),
    facts: {
      answer: c.got.held ?? c.got.text,
      citations: c.got.citations,
      packs: [...new Set(ok.map((r) => r.packId))],
      handoff: c.got.handoff || ok.some((r) => r.packId === HANDOFF_PACK),
      figures,
      lang,
    },
  };
}

/** Without a model: what the knowledge search finds is the answer (its passages), and its pages the citations. */
export async function askRetrieval(
  search: KnowledgeSearcher,
  tenant: TenantRow,
  question: string,
): Promise<Asked> {
  const found = await search(tenant.id, [question], new AbortController().signal);
  const lang = langOf(tenant.bot.language);
  const passages = found.passages.slice(0, 3);
  const answer = found.curated ? found.curated.answer : passages.map((p) => p.text).join("\n\n");
  const citations: Citation[] = [];
  for (const p of passages) {
    if (citations.some((c) => c.url === p.url || c.title === p.title)) continue;
    citations.push({ n: citations.length + 1, title: p.title, ...(p.url ? { url: p.url } : {}) });
  }
  const any = !!found.curated || passages.length > 0;
  return {
    tokens: 0,
    facts: {
      answer,
      citations,
      packs: any ? ["search_knowledge"] : [],
      handoff: false,
      figures: null,
      lang,
      nothingFound: !any,
    },
  };
}
