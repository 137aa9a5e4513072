import { knowledgeSearcherFor } from "../../src/lib/knowledge/searcher";
import { searchKnowledge as knowledgePack } from "../../src/lib/tools/packs/search-knowledge";
import {
  type BlindReport,
  blindFile,
  formatBlind,
  indexSite,
  loadBlind,
  manifestOf,
  SITES,
  scoreBlind,
} from "./blind";

// The blind questions of every site, through the real pack (see blind.ts for what is measured).

const silent = { info() {}, warn() {}, error() {}, debug() {}, child: () => silent } as never;

export async function benchBlind(opts: {
  log: (s: string) => void;
  half?: string;
  details?: boolean;
}): Promise<BlindReport[]> {
  const half = opts.half ?? "dev";
  const reports: BlindReport[] = [];
  for (const site of SITES) {
    const file = blindFile(site, half, opts.log);
    if (!file) continue;
    const manifest = manifestOf(site);
    const questions = loadBlind(file, manifest.pages);
    const indexed = await indexSite(site, opts.log);
    try {
      const ctx = {
        knowledge: knowledgeSearcherFor(indexed.db),
        tenantId: indexed.tenantId,
        conversationId: null,
        signal: new AbortController().signal,
        log: silent,
      };
      const report = await scoreBlind(site.name, half, questions, manifest.disallowed, (args) =>
        knowledgePack.run({} as never, args, ctx),
      );
      // The held-out half is for one final measurement: its per-question results are never printed or written
      // to bench/results.json, so nobody (tuner or reader) can fit the ranking to them. Aggregates only.
      if (half !== "dev") report.misses = [];
      opts.log(formatBlind(report, opts.details && half === "dev"));
      reports.push(report);
    } finally {
      await indexed.close();
    }
  }
  return reports;
}
