// Retrieval quality on questions written blind (bench/knowledge/blind/<half>/<site>.json): by a helper who read
// only the pages' text, never the ranking. Each site is served over https on loopback, crawled by the real sync
// into a fresh database, and every question goes verbatim to the real search_knowledge pack, whose result (what
// the model would receive) is scored. Only the dev half is for tuning; the held-out half (--half=heldout) is run
// once, at the end, by whoever did not tune.
//
//   recall@3, recall@5  share of answerable questions with an expected page among the first 3 / 5 distinct
//                       pages the pack hands the model
//   MRR                 mean of 1 / rank of the first expected page among those pages (0 when absent)
//   turned away         share of questions the site does not answer (or answers only on a robots-disallowed
//                       page) for which the pack said "nothing relevant"
//   lost to a filter    answerable questions the pack said "nothing relevant" to
//   pages, chars        distinct pages and characters of the pack's result, averaged over answerable questions
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { sql } from "drizzle-orm";
import { createDb, type DbHandle, rowsOf } from "../../src/lib/db/client";
import { migrate } from "../../src/lib/db/migrate";
import { createTenant } from "../../src/lib/db/queries/tenants";
import { startSync } from "../../src/lib/knowledge/sync";
import type { JobQueue } from "../../src/lib/queue";
import { addSitemapSource, startKnowledgeInstance } from "../../tests/support/knowledge";
import { serveStaticSiteOnThread } from "../lib/static-site-thread";
import { round } from "../lib/stats";
import { CLOUDGOV_ORIGIN, cloudgovDir } from "./build-cloudgov";

export type BlindQuestion = {
  id: string;
  kind: string;
  question: string;
  /** The same question in the pages' language, as a model would write it (other-language questions). */
  siteQuery?: string;
  /** Page paths that answer it ("/help/x.html", "/docs/y/"); empty for questions nothing should answer. */
  expect: string[];
};

export type PackRun = (args: { query: string; queries?: string[] }) => Promise<unknown>;

const TURN_AWAY = /unanswer|no[-_ ]?answer|not[-_ ]on|disallow|robots|off[-_ ]site/i;
const OTHER_LANG = /other[-_ ]?lang|lang|^es$|^fr$|^ja$|^de$|translat/i;

export const SITES = [
  {
    name: "logingov",
    dir: path.resolve(import.meta.dirname, "../../../shared/knowledge-sites/logingov"),
    origin: "https://localhost:8441",
    howToGet: "the shared knowledge sites are not checked out beside the project (../shared/knowledge-sites)",
  },
  {
    name: "cloudgov",
    dir: cloudgovDir(),
    origin: CLOUDGOV_ORIGIN,
    howToGet: "build it with `npx tsx bench/knowledge/build-cloudgov.ts` (KNOWLEDGE_EXTRA_DIR sets where)",
  },
];

/** The path of a page address, `index.html` and a trailing slash treated as the same page. */
function pagePath(url: string): string {
  const p = decodeURIComponent(url.startsWith("/") ? url.split(/[?#]/)[0]! : new URL(url).pathname);
  return p.endsWith("/") ? `${p}index.html` : p;
}

type RawQuestion = Record<string, unknown>;

/** Reads a question file, tolerant of the names its writer chose (question/query, expect/expected/pages). */
export function loadBlind(file: string, manifest: Record<string, string> | null): BlindQuestion[] {
  const raw = JSON.parse(readFileSync(file, "utf8")) as RawQuestion[] | { questions: RawQuestion[] };
  const list = Array.isArray(raw) ? raw : raw.questions;
  const str = (q: RawQuestion, ...keys: string[]) => {
    for (const k of keys) if (typeof q[k] === "string" && q[k]) return q[k] as string;
    return undefined;
  };
  const arr = (q: RawQuestion, ...keys: string[]): string[] => {
    for (const k of keys) {
      const v = q[k];
      if (Array.isArray(v)) return v.filter((x): x is string => typeof x === "string");
      if (typeof v === "string" && v) return [v];
    }
    return [];
  };
  return list.map((q, i) => ({
    id: str(q, "id") ?? `q${i + 1}`,
    kind: str(q, "kind", "type") ?? "unknown",
    question: str(q, "question", "query", "text")!,
    siteQuery: str(q, "site_query", "siteQuery", "query_en", "english"),
    expect: arr(q, "expect", "expected", "pages", "answers", "urls", "sources").map((e) => {
      // A page id is a file path under the site's folder, or for a site built from sources (cloudgov) the
      // source path its manifest maps to an address.
      const mapped = e.startsWith("_") && manifest ? (manifest[e] ?? e) : e;
      return pagePath(/^(\/|https?:)/.test(mapped) ? mapped : `/${mapped}`);
    }),
  }));
}

/** The distinct pages of a pack result, in the order of its passages, and its size. */
function received(result: unknown): { found: boolean; pages: string[]; strong: string[]; chars: number } {
  const r = (typeof result === "string" ? JSON.parse(result) : result) as {
    found?: boolean;
    passages?: { url?: string; strength?: string }[];
  };
  const pages: string[] = [];
  const strong: string[] = [];
  for (const p of r.passages ?? []) {
    if (!p.url) continue;
    const pp = pagePath(p.url);
    if (!pages.includes(pp)) pages.push(pp);
    if (p.strength === "strong" && !strong.includes(pp)) strong.push(pp);
  }
  return { found: r.found !== false, pages, strong, chars: JSON.stringify(r).length };
}

/** `strong`: the expected page among the passages marked strong (what the model is told to trust most). */
type KindFigures = {
  n: number;
  r3: number;
  r5: number;
  mrr: number;
  strong: number;
  lost: number;
  pages: number;
  chars: number;
};

export type BlindReport = {
  site: string;
  half: string;
  answerable: KindFigures;
  byKind: Record<string, KindFigures>;
  /** `empty`: the pack said nothing relevant; `weak`: no passage was strong (the model's cue to abstain). */
  turnedAway: { n: number; empty: number; weak: number };
  leaks: number;
  /** Other-language questions with the pages'-language query sent first (the scripted model's path). */
  crossLanguage?: KindFigures;
  misses: string[];
};

const blank = (): KindFigures => ({ n: 0, r3: 0, r5: 0, mrr: 0, strong: 0, lost: 0, pages: 0, chars: 0 });

function add(f: KindFigures, expect: string[], got: ReturnType<typeof received>) {
  f.n++;
  const rank = got.pages.findIndex((p) => expect.includes(p)) + 1;
  if (rank >= 1 && rank <= 3) f.r3++;
  if (rank >= 1 && rank <= 5) f.r5++;
  if (rank >= 1) f.mrr += 1 / rank;
  if (got.strong.some((p) => expect.includes(p))) f.strong++;
  if (!got.found) f.lost++;
  f.pages += got.pages.length;
  f.chars += got.chars;
}

function finish(f: KindFigures): KindFigures {
  const n = f.n || 1;
  return {
    n: f.n,
    r3: round(f.r3 / n, 3),
    r5: round(f.r5 / n, 3),
    mrr: round(f.mrr / n, 3),
    strong: round(f.strong / n, 3),
    lost: f.lost,
    pages: round(f.pages / n, 1),
    chars: round(f.chars / n, 0),
  };
}

export async function scoreBlind(
  site: string,
  half: string,
  questions: BlindQuestion[],
  disallowed: string[],
  run: PackRun,
): Promise<BlindReport> {
  const all = blank();
  const byKind: Record<string, KindFigures> = {};
  const cross = blank();
  const away = { n: 0, empty: 0, weak: 0 };
  let leaks = 0;
  const misses: string[] = [];
  for (const q of questions) {
    const got = received(await run({ query: q.question }));
    leaks += got.pages.filter((p) => disallowed.some((d) => p.startsWith(d))).length;
    if (TURN_AWAY.test(q.kind) || q.expect.length === 0) {
      away.n++;
      if (!got.found) away.empty++;
      if (got.strong.length === 0) away.weak++;
      else misses.push(`  answered ${q.id} (${q.kind}) "${q.question}": ${got.pages.slice(0, 3).join(", ")}`);
      continue;
    }
    add(all, q.expect, got);
    byKind[q.kind] ??= blank();
    add(byKind[q.kind]!, q.expect, got);
    const rank = got.pages.findIndex((p) => q.expect.includes(p)) + 1;
    if (rank === 0 || rank > 5)
      misses.push(
        `  miss ${q.id} (${q.kind}) "${q.question}": expected ${q.expect.join(" | ")}; got ${got.found ? got.pages.join(", ") : "nothing relevant"}`,
      );
    if (OTHER_LANG.test(q.kind) && q.siteQuery) {
      const queries = [q.siteQuery, q.question];
      const viaModel = received(await run({ query: q.siteQuery, queries }));
      add(cross, q.expect, viaModel);
      const r = viaModel.pages.findIndex((p) => q.expect.includes(p)) + 1;
      if (r === 0 || r > 5)
        misses.push(
          `  miss ${q.id} (cross, model's query "${q.siteQuery}"): expected ${q.expect.join(" | ")}; got ${viaModel.pages.join(", ")}`,
        );
    }
  }
  return {
    site,
    half,
    answerable: finish(all),
    byKind: Object.fromEntries(Object.entries(byKind).map(([k, v]) => [k, finish(v)])),
    turnedAway: away,
    leaks,
    ...(cross.n ? { crossLanguage: finish(cross) } : {}),
    misses,
  };
}

export function formatBlind(r: BlindReport, details = false): string {
  const row = (name: string, f: KindFigures) =>
    `  ${name.padEnd(14)} n=${String(f.n).padStart(3)}  r@3 ${f.r3.toFixed(3)}  r@5 ${f.r5.toFixed(3)}  MRR ${f.mrr.toFixed(3)}  strong ${f.strong.toFixed(3)}  lost ${f.lost}  pages ${f.pages}  chars ${f.chars}`;
  const lines = [
    `knowledge blind ${r.site} (${r.half}):`,
    row("answerable", r.answerable),
    ...Object.entries(r.byKind).map(([k, f]) => row(k, f)),
    ...(r.crossLanguage ? [row("cross (model)", r.crossLanguage)] : []),
    `  not answerable ${r.turnedAway.n}: turned away ${r.turnedAway.empty}, no strong passage ${r.turnedAway.weak}   robots leaks ${r.leaks}`,
  ];
  if (details) lines.push(...r.misses);
  return lines.join("\n");
}

/** Serves a site folder, crawls it through the real jobs into a fresh embedded database. */
export async function indexSite(
  site: (typeof SITES)[number],
  log: (s: string) => void,
): Promise<{ db: DbHandle; tenantId: string; close(): Promise<void> }> {
  const served = await serveStaticSiteOnThread(site.dir, { originInFiles: site.origin });
  const db = await createDb({ dataDir: null });
  await migrate(db);
  const tenantId = (
    await createTenant(db.platform, { slug: `blind-${site.name}-${Date.now()}`, name: site.name })
  ).id;
  const sourceId = await addSitemapSource(db, tenantId, `${served.origin}/sitemap.xml`, {
    pageCap: 1000,
    schedule: "off",
  });
  const k = await startKnowledgeInstance(db, served, { worker: true });
  const t0 = performance.now();
  await startSync(db, k.queue as JobQueue, { tenantId, sourceId, actor: null, reason: "manual" });
  for (;;) {
    const [s] = await rowsOf<{ sync_state: string }>(
      db.platform,
      sql`select sync_state from knowledge_sources where id = ${sourceId}`,
    );
    if (s?.sync_state === "idle") break;
    await new Promise((r) => setTimeout(r, 200));
  }
  await k.stop();
  await served.close();
  const [c] = await rowsOf<{ pages: number; chunks: number }>(
    db.platform,
    sql`select (select count(*)::int from knowledge_pages where status = 'indexed') as pages,
               (select count(*)::int from knowledge_chunks) as chunks`,
  );
  log(
    `knowledge blind: ${site.name} indexed, ${c?.pages} pages, ${c?.chunks} passages, ${round((performance.now() - t0) / 1000, 1)} s`,
  );
  return { db, tenantId, close: () => db.close() };
}

/** The question file of one site and half, or null (said loudly) when it or the site is missing. */
export function blindFile(
  site: (typeof SITES)[number],
  half: string,
  log: (s: string) => void,
): string | null {
  if (!existsSync(site.dir)) {
    log(`knowledge blind: SKIPPED ${site.name}: ${site.dir} is not there; ${site.howToGet}`);
    return null;
  }
  const file = path.resolve(import.meta.dirname, "blind", half, `${site.name}.json`);
  if (!existsSync(file)) {
    log(`knowledge blind: SKIPPED ${site.name}: no questions at ${file}`);
    return null;
  }
  return file;
}

export function manifestOf(site: (typeof SITES)[number]): {
  pages: Record<string, string> | null;
  disallowed: string[];
} {
  const file = path.join(site.dir, "manifest.json");
  if (existsSync(file)) {
    const m = JSON.parse(readFileSync(file, "utf8")) as {
      pages: Record<string, string>;
      disallowed: string[];
    };
    return { pages: m.pages, disallowed: m.disallowed };
  }
  const robots = path.join(site.dir, "robots.txt");
  const disallowed = existsSync(robots)
    ? [...readFileSync(robots, "utf8").matchAll(/^Disallow:\s*(\S+)/gm)].map((m) => m[1]!)
    : [];
  return { pages: null, disallowed };
}
