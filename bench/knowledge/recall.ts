// Retrieval quality on a real website nobody on this project wrote: the Login.gov help-centre copy in
// ../shared/knowledge-sites/logingov, with the questions of logingov-questions.json (written for this
// project; each names the page paths that answer it). Any search plugs in as `(query) => results`, results
// best first, each with the absolute URL of its page; what the search returns is what it claims is relevant
// (an empty list means "nothing relevant").
//
//   recall@5      share of answerable questions with a right page among the first 5 distinct pages
//   no-answer     share of unanswerable questions (and those answered only under a robots-disallowed folder)
//                 for which the search returned nothing
//   robots leaks  results, for any question, from a folder robots.txt disallows (must be none)
//
// Run alone (`npx tsx --conditions=react-server bench/knowledge/recall.ts`) it measures the plain lexical
// baseline of baseline-search.ts, which needs no database: a floor to compare the real search with.
import { readFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { percentile } from "../lib/stats";

export type QuestionKind = "verbatim" | "paraphrase" | "typo" | "es" | "fr" | "no-answer" | "robots";
export type KnowledgeQuestion = { id: string; kind: QuestionKind; query: string; expect: string[] };
export type QuestionSet = { site: string; disallowed: string[]; questions: KnowledgeQuestion[] };
export type SearchFn = (query: string) => Promise<{ url: string }[]>;

export type RecallReport = {
  k: number;
  answerable: number;
  recall: number;
  byKind: Record<string, { n: number; hits: number; recall: number }>;
  noAnswer: { n: number; empty: number; accuracy: number };
  robotsLeaks: { id: string; url: string }[];
  misses: { id: string; query: string; expect: string[]; got: string[] }[];
  /** Unanswerable questions the search still answered, with what it returned. */
  falseAnswers: { id: string; query: string; got: string[] }[];
  latencyMs: { p50: number; p95: number };
};

const NO_ANSWER: QuestionKind[] = ["no-answer", "robots"];

export function loadQuestions(file = path.join(import.meta.dirname, "logingov-questions.json")): QuestionSet {
  return JSON.parse(readFileSync(file, "utf8")) as QuestionSet;
}

/** The path of a result URL, `index.html` and a trailing slash treated as the same page. */
function pagePath(url: string): string {
  const p = decodeURIComponent(new URL(url).pathname);
  return p.endsWith("/") ? `${p}index.html` : p;
}

/** The first `k` distinct pages of a result list (several passages of one page count once). */
function topPages(results: { url: string }[], k: number): string[] {
  const out: string[] = [];
  for (const r of results) {
    const p = pagePath(r.url);
    if (!out.includes(p)) out.push(p);
    if (out.length === k) break;
  }
  return out;
}

export async function measureRecall(
  search: SearchFn,
  opts: { k?: number; set?: QuestionSet } = {},
): Promise<RecallReport> {
  const k = opts.k ?? 5;
  const set = opts.set ?? loadQuestions();
  const report: RecallReport = {
    k,
    answerable: 0,
    recall: 0,
    byKind: {},
    noAnswer: { n: 0, empty: 0, accuracy: 0 },
    robotsLeaks: [],
    misses: [],
    falseAnswers: [],
    latencyMs: { p50: 0, p95: 0 },
  };
  const times: number[] = [];
  let hits = 0;
  for (const q of set.questions) {
    const t0 = performance.now();
    const results = await search(q.query);
    times.push(performance.now() - t0);
    for (const r of results) {
      if (set.disallowed.some((d) => pagePath(r.url).startsWith(d)))
        report.robotsLeaks.push({ id: q.id, url: r.url });
    }
    const pages = topPages(results, k);
    if (NO_ANSWER.includes(q.kind)) {
      report.noAnswer.n++;
      if (results.length === 0) report.noAnswer.empty++;
      else report.falseAnswers.push({ id: q.id, query: q.query, got: pages });
      continue;
    }
    const kind = report.byKind[q.kind] ?? { n: 0, hits: 0, recall: 0 };
    report.byKind[q.kind] = kind;
    kind.n++;
    report.answerable++;
    if (pages.some((p) => q.expect.includes(p))) {
      hits++;
      kind.hits++;
    } else {
      report.misses.push({ id: q.id, query: q.query, expect: q.expect, got: pages });
    }
  }
  report.recall = report.answerable ? hits / report.answerable : 0;
  for (const kind of Object.values(report.byKind)) kind.recall = kind.n ? kind.hits / kind.n : 0;
  report.noAnswer.accuracy = report.noAnswer.n ? report.noAnswer.empty / report.noAnswer.n : 0;
  const sorted = [...times].sort((a, b) => a - b);
  report.latencyMs = { p50: percentile(sorted, 50), p95: percentile(sorted, 95) };
  return report;
}

const pct = (v: number) => `${(v * 100).toFixed(1)}%`;

export function formatRecall(report: RecallReport, opts: { details?: boolean } = {}): string {
  const lines = [
    `recall@${report.k}: ${pct(report.recall)} of ${report.answerable} answerable questions`,
    ...Object.entries(report.byKind).map(
      ([kind, v]) => `  ${kind.padEnd(10)} ${pct(v.recall).padStart(6)}  (${v.hits}/${v.n})`,
    ),
    `no-answer: ${pct(report.noAnswer.accuracy)} (${report.noAnswer.empty}/${report.noAnswer.n} returned nothing)`,
    `robots leaks: ${report.robotsLeaks.length}${report.robotsLeaks.length ? ` (${report.robotsLeaks.map((l) => l.url).join(", ")})` : ""}`,
    `search latency: p50 ${report.latencyMs.p50.toFixed(1)} ms, p95 ${report.latencyMs.p95.toFixed(1)} ms`,
  ];
  if (opts.details) {
    for (const m of report.misses)
      lines.push(
        `  miss ${m.id} "${m.query}": expected ${m.expect.join(" | ")}; got ${m.got.join(", ") || "nothing"}`,
      );
    for (const f of report.falseAnswers) lines.push(`  answered ${f.id} "${f.query}": ${f.got.join(", ")}`);
  }
  return lines.join("\n");
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { baselineSearch } = await import("./baseline-search");
  const search = await baselineSearch();
  if (!search) process.exit(0);
  console.log("lexical baseline (BM25 over chunks, no database):");
  console.log(formatRecall(await measureRecall(search), { details: process.argv.includes("--details") }));
}
