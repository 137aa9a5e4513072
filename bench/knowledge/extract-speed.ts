// How long one document's extraction holds the thread that runs it: the longest page of the Login.gov copy
// (its 85 KB partner guide) and a 20-page PDF written by tests/support/pdf-writer.ts. Whatever runs
// extraction (a worker thread or the job process) is busy this long per document; the chat's event loop
// must never be that thread.
//   npx tsx --conditions=react-server bench/knowledge/extract-speed.ts
import { statSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { chunkSections, extractDocument } from "../../src/lib/knowledge/extract";
import { logingovDir, sitePages } from "../../tests/support/knowledge-sites";
import { writePdf } from "../../tests/support/pdf-writer";
import { type Summary, summarize } from "../lib/stats";

export type ExtractSpeed = {
  longestPage: { path: string; bytes: number; firstMs: number; ms: Summary } | null;
  pdf: { pages: number; bytes: number; firstMs: number; ms: Summary };
};

async function timed(runs: number, f: () => Promise<unknown>): Promise<{ firstMs: number; ms: Summary }> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await f();
    times.push(performance.now() - t0);
  }
  return { firstMs: times[0] ?? 0, ms: summarize(times.slice(1)) };
}

function manual(pages: number) {
  return Array.from({ length: pages }, (_, p) => [
    { text: `Chapter ${p + 1}: opening hours, parking and group bookings`, size: 18 },
    ...Array.from({ length: 40 }, (_, l) => ({
      text: `Line ${l + 1} of page ${p + 1}. Guests park in the garage; groups of ten or more book by phone.`,
    })),
  ]);
}

/** Extraction plus chunking, timed `runs` times each (the first run, which loads the parsers, apart). */
export async function benchExtraction(runs = 15): Promise<ExtractSpeed> {
  const dir = logingovDir();
  let longestPage: ExtractSpeed["longestPage"] = null;
  if (dir) {
    const longest = sitePages(dir).reduce((a, b) => (b.html.length > a.html.length ? b : a));
    const url = `https://localhost:8441${longest.path}`;
    const t = await timed(runs, async () => {
      const r = await extractDocument({ html: longest.html, url });
      if (r.ok) chunkSections(r.doc.sections);
    });
    longestPage = { path: longest.path, bytes: statSync(path.join(dir, longest.path)).size, ...t };
  }
  const bytes = writePdf(manual(20), { title: "Guest manual" });
  const t = await timed(runs, async () => {
    const r = await extractDocument({
      bytes,
      contentType: "application/pdf",
      url: "https://hotel.example/manual.pdf",
    });
    if (r.ok) chunkSections(r.doc.sections);
  });
  return { longestPage, pdf: { pages: 20, bytes: bytes.byteLength, ...t } };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const r = await benchExtraction();
  const line = (name: string, x: { firstMs: number; ms: Summary }) =>
    `${name}: first ${x.firstMs.toFixed(0)} ms, then p50 ${x.ms.p50.toFixed(1)} ms, p90 ${x.ms.p90.toFixed(1)} ms, max ${x.ms.max.toFixed(1)} ms`;
  if (r.longestPage)
    console.log(line(`${r.longestPage.path} (${Math.round(r.longestPage.bytes / 1024)} KB)`, r.longestPage));
  console.log(line(`PDF of ${r.pdf.pages} pages (${Math.round(r.pdf.bytes / 1024)} KB)`, r.pdf));
}
