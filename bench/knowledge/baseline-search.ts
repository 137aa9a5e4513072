// A plain lexical search over the Login.gov copy, without a database: pages read from the folder (robots.txt
// disallows, noindex, canonical duplicates and link-hub pages honoured as a crawler would), extracted and chunked by
// src/lib/knowledge/extract, scored with BM25 on accent- and case-folded words. A result must match query
// words carrying at least half of the query's weight (idf), else the search answers nothing. It is the floor
// recall.ts compares the real search with, not the real search.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { chunkSections, extractDocument } from "../../src/lib/knowledge/extract";
import type { SearchFn } from "./recall";

const SITE = path.resolve(import.meta.dirname, "../../../shared/knowledge-sites/logingov");
const ORIGIN = "https://localhost:8441";

const fold = (s: string) => s.normalize("NFD").replace(/\p{M}/gu, "").toLowerCase();
const words = (s: string) => fold(s).match(/[\p{L}\p{N}]+/gu) ?? [];

function htmlFiles(dir: string, sub = ""): string[] {
  return readdirSync(path.join(dir, sub), { withFileTypes: true }).flatMap((e) => {
    const rel = path.posix.join(sub, e.name);
    return e.isDirectory() ? htmlFiles(dir, rel) : e.name.endsWith(".html") ? [`/${rel}`] : [];
  });
}

function disallowed(robots: string): string[] {
  const out: string[] = [];
  let applies = false;
  for (const line of robots.split("\n")) {
    const [field, ...rest] = line.split(":");
    const value = rest.join(":").trim();
    if (/^user-agent$/i.test(field?.trim() ?? ""))
      applies = value === "*" || value.toLowerCase() === "michi-chat";
    else if (applies && /^disallow$/i.test(field?.trim() ?? "") && value) out.push(value);
  }
  return out;
}

type Doc = { url: string; tf: Map<string, number>; len: number };

/** The baseline search, or null (with a warning) when ../shared is absent. */
export async function baselineSearch(): Promise<SearchFn | null> {
  if (!existsSync(path.join(SITE, "robots.txt"))) {
    console.warn(`SKIPPED: ${SITE} is absent, so the retrieval-quality baseline does not run.`);
    return null;
  }
  const blocked = disallowed(readFileSync(path.join(SITE, "robots.txt"), "utf8"));
  const docs: Doc[] = [];
  for (const file of htmlFiles(SITE)) {
    if (blocked.some((b) => file.startsWith(b))) continue;
    const url = ORIGIN + file;
    const result = await extractDocument({ html: readFileSync(path.join(SITE, file), "utf8"), url });
    if (!result.ok || result.doc.noindex || result.doc.navigationOnly) continue;
    if (result.doc.canonical && result.doc.canonical !== url) continue;
    for (const chunk of chunkSections(result.doc.sections)) {
      const tf = new Map<string, number>();
      const ws = words(`${result.doc.title ?? ""} ${chunk.headingPath.join(" ")} ${chunk.text}`);
      for (const w of ws) tf.set(w, (tf.get(w) ?? 0) + 1);
      docs.push({ url, tf, len: ws.length });
    }
  }
  const df = new Map<string, number>();
  for (const d of docs) for (const w of d.tf.keys()) df.set(w, (df.get(w) ?? 0) + 1);
  const avg = docs.reduce((n, d) => n + d.len, 0) / docs.length;
  const idf = (w: string) => Math.log(1 + (docs.length - (df.get(w) ?? 0) + 0.5) / ((df.get(w) ?? 0) + 0.5));
  return async (query) => {
    const terms = [...new Set(words(query))];
    const weight = terms.reduce((n, t) => n + idf(t), 0);
    const scored: { url: string; score: number }[] = [];
    for (const d of docs) {
      let score = 0;
      let matched = 0;
      for (const t of terms) {
        const f = d.tf.get(t);
        if (!f) continue;
        matched += idf(t);
        score += (idf(t) * f * 2.2) / (f + 1.2 * (0.25 + (0.75 * d.len) / avg));
      }
      if (weight > 0 && matched / weight >= 0.5) scored.push({ url: d.url, score });
    }
    return scored.sort((a, b) => b.score - a.score).slice(0, 20);
  };
}
