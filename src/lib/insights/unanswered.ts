import "server-only";
import { z } from "zod";
import { assertRole, auditedTx, type TenantContext } from "../auth/access";
import type { TenantTx } from "../db/client";
import { listPackConfigs } from "../db/queries/packs";
import {
  markQuestionsHandled,
  similarPairs,
  type UnansweredRow,
  type UnansweredWhy,
  unansweredCandidates,
} from "../db/queries/unanswered";
import { AppError } from "../errors";
import type { ToolPack } from "../tools/contract";
import { ALL_PACKS } from "../tools/index";

// The "unanswered questions" report: the owner's to-do list for making the bot better. Visitor questions whose
// turn failed, hit the round cap, came back empty, was rated down or ended in a hand-off, grouped when they
// read almost the same (pg_trgm similarity), each group with a pack that might have answered it.

/** Trigram similarity from which two questions count as the same question asked again. */
export const SAME_QUESTION = 0.5;
/** How far back the report looks, and how many answers it weighs at most. */
export const REPORT_DAYS = 90;
const MAX_ROWS = 400;

export type UnansweredGroup = {
  /** The newest wording of the question. */
  question: string;
  count: number;
  latest: Date;
  why: UnansweredWhy[];
  conversations: string[];
  questionIds: string[];
  /** A switched-off pack whose description matches the question's words, if any. */
  suggestion: { packId: string; label: string } | null;
};

/** Joins pairs of similar rows into groups (union-find over row indexes); groups keep the rows' order. */
export function groupRows<T>(rows: T[], pairs: [number, number][]): T[][] {
  const parent = rows.map((_, i) => i);
  const find = (i: number): number => {
    while (parent[i] !== i) {
      parent[i] = parent[parent[i]!]!;
      i = parent[i]!;
    }
    return i;
  };
  for (const [a, b] of pairs) {
    const ra = find(a);
    const rb = find(b);
    if (ra !== rb) parent[Math.max(ra, rb)] = Math.min(ra, rb);
  }
  const groups = new Map<number, T[]>();
  rows.forEach((row, i) => {
    const root = find(i);
    const g = groups.get(root) ?? [];
    g.push(row);
    groups.set(root, g);
  });
  return [...groups.values()];
}

// Words that say nothing about a topic, in the languages the widget speaks.
const STOP = new Set(
  (
    "the a an and or of to in on at for is are was be do does did you your we our us my me i it this that " +
    "what when where which who how can could would will there have has with from about any some not no " +
    "el la los las un una y o de del en que es son por para con tu su hay se le " +
    "le la les un une et ou de des du en est sont pour avec vous nous il elle " +
    "der die das ein eine und oder von zu im ist sind für mit sie wir ich es " +
    "business visitor " +
    // Words of time and asking, shared by questions and packs' descriptions alike: "rye bread today?" met the
    // weather pack on "today" alone. A suggestion must rest on a word about the topic.
    "today tonight tomorrow now right time times next week day days morning afternoon evening weekend still " +
    "soon later check tell get call ask asks give use say need want look lets here own type show help know " +
    "offer only never them each other first back short please just also much many more one answer question"
  ).split(" "),
);

/**
 * Lower-case words of at least three letters, without a plural or -ing/-ed ending and cut to five letters, so
 * "opens", "opening" and "open" meet (a rough stem, enough to compare a question with a pack's description).
 */
export function stems(text: string): Set<string> {
  const out = new Set<string>();
  for (const w of text.toLowerCase().match(/[\p{L}\p{N}]{3,}/gu) ?? []) {
    if (STOP.has(w)) continue;
    out.add((w.length > 4 ? w.replace(/(ing|ed|es|s)$/, "") : w).slice(0, 5));
  }
  return out;
}

function packText(p: ToolPack): string {
  return [p.label, p.summary, p.definition.function.description, p.promptHint].filter(Boolean).join(" ");
}

/**
 * The switched-off pack that shares the most topic words with the questions (at least one), from the packs'
 * own label, summary, description and prompt hint. Null when none shares a word.
 */
export function suggestPack(
  questions: string[],
  disabled: readonly ToolPack[],
): { packId: string; label: string } | null {
  const asked = new Set(questions.flatMap((q) => [...stems(q)]));
  let best: { pack: ToolPack; score: number } | null = null;
  for (const pack of disabled) {
    const words = stems(packText(pack));
    let score = 0;
    for (const w of asked) if (words.has(w)) score++;
    if (score > 0 && (!best || score > best.score)) best = { pack, score };
  }
  return best ? { packId: best.pack.id, label: best.pack.label } : null;
}

/** The report for one tenant, in its transaction; groups with the most questions first, then the newest. */
export async function unansweredReport(
  tx: TenantTx,
  tenantId: string,
  opts: { now?: Date; packs?: readonly ToolPack[] } = {},
): Promise<UnansweredGroup[]> {
  const now = opts.now ?? new Date();
  const rows = await unansweredCandidates(tx, tenantId, {
    since: new Date(now.getTime() - REPORT_DAYS * 86_400_000),
    limit: MAX_ROWS,
  });
  if (rows.length === 0) return [];
  const pairs = await similarPairs(
    tx,
    rows.map((r) => r.question),
    SAME_QUESTION,
  );
  const enabled = new Set((await listPackConfigs(tx)).filter((c) => c.enabled).map((c) => c.packId));
  const disabled = (opts.packs ?? ALL_PACKS).filter((p) => !enabled.has(p.id));
  return groupRows(rows, pairs)
    .map((g) => toGroup(g, disabled))
    .sort((a, b) => b.count - a.count || b.latest.getTime() - a.latest.getTime());
}

function toGroup(rows: UnansweredRow[], disabled: readonly ToolPack[]): UnansweredGroup {
  const uniq = <T>(xs: T[]) => [...new Set(xs)];
  // Rows arrive newest first, so the first one is the latest wording.
  return {
    question: rows[0]!.question,
    count: uniq(rows.map((r) => r.questionId)).length,
    latest: rows[0]!.at,
    why: uniq(rows.map((r) => r.why)),
    conversations: uniq(rows.map((r) => r.conversationId)),
    questionIds: uniq(rows.map((r) => r.questionId)),
    suggestion: suggestPack(
      rows.map((r) => r.question),
      disabled,
    ),
  };
}

export const markHandledSchema = z.object({
  questionIds: z
    .union([z.uuid(), z.array(z.uuid()).max(MAX_ROWS)])
    .transform((v) => (Array.isArray(v) ? v : [v])),
});

/** Marks one group's questions handled; they leave the report (a new question like them comes back). */
export async function markUnansweredHandled(ctx: TenantContext, questionIds: string[]): Promise<number> {
  assertRole(ctx, "admin");
  return auditedTx(ctx, async (tx, record) => {
    const n = await markQuestionsHandled(tx, ctx.tenant.id, questionIds, ctx.user.id);
    if (n === 0)
      throw new AppError("not_found", "These questions were not found; they may already be handled.");
    await record("unanswered.handled", { details: { questions: n } });
    return n;
  });
}
