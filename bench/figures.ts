// The figure check (issue 42, src/lib/chat/figures): how well it tells a figure the turn's sources state from
// one they do not, over the corpus of real menus, price lists and opening hours in five languages
// (tests/fixtures/figures/corpus.ts), and what it costs a turn in CPU. Runs in this process: the check is
// plain code at the end of the turn, with no I/O of its own.
import { checkTurnFigures } from "../src/lib/chat/figures/turn-check";
import type { Lang } from "../src/shared/languages";
import { CORPUS } from "../tests/fixtures/figures/corpus";

export type FiguresResult = {
  cases: number;
  figures: number;
  /** Figures the corpus says no source states, and of those the ones the check flagged. */
  unsupported: number;
  caught: number;
  /** caught / unsupported (target ≥ 0.95). */
  recall: number;
  /** Figures a source states, and of those the ones the check flagged anyway. */
  supported: number;
  falseFlags: number;
  /** falseFlags / supported (target ≤ 0.02). */
  falseFlagRate: number;
  /** Of everything flagged, the share that was really unsupported. */
  precision: number;
  /** Figures of the corpus the detector did not find at all (each counts as a miss above when unsupported). */
  notDetected: number;
  byLang: Record<string, { unsupported: number; caught: number; supported: number; falseFlags: number }>;
  /** CPU of the check per turn (a corpus answer against a turn's worth of sources), on and off. */
  cpuMsPerTurnOn: number;
  cpuMsPerTurnOff: number;
};

const ratio = (a: number, b: number) => (b === 0 ? 1 : Math.round((a / b) * 1000) / 1000);

// A turn's worth of other sources beside the corpus page: what a search returns (three passages of a few
// hundred characters, as search_knowledge caps them) and a tenant's instructions.
const FILLER = "Our team is happy to help with orders, gift cards and private events. ".repeat(8);
const passages = (source: string) =>
  JSON.stringify({
    found: true,
    passages: [1, 2, 3].map((n) => ({
      n,
      title: `Page ${n}`,
      url: `https://shop.example/p${n}`,
      text: n === 2 ? source : FILLER,
    })),
  });

function turnFacts(c: (typeof CORPUS)[number], mode: "mark" | "off") {
  return {
    mode,
    lang: c.lang as Lang,
    message: "Could you tell me about prices and opening hours?",
    instructions: `Be brief and friendly. ${FILLER}`,
    answer: c.answer,
    runs: [
      { packId: "search_knowledge", result: passages(c.source), outcome: "ok" },
      { packId: "opening_hours", result: JSON.stringify({ today: "closed", note: FILLER }), outcome: "ok" },
    ],
  };
}

function cpuMsPerTurn(mode: "mark" | "off", rounds: number): number {
  const start = process.cpuUsage();
  for (let r = 0; r < rounds; r++) for (const c of CORPUS) checkTurnFigures(turnFacts(c, mode));
  const used = process.cpuUsage(start);
  return Math.round(((used.user + used.system) / 1000 / (rounds * CORPUS.length)) * 1000) / 1000;
}

export function benchFigures(opts: { quick?: boolean; log: (s: string) => void }): FiguresResult {
  const byLang: FiguresResult["byLang"] = {};
  let unsupported = 0;
  let caught = 0;
  let supported = 0;
  let falseFlags = 0;
  let notDetected = 0;
  for (const c of CORPUS) {
    const verdict = checkTurnFigures(turnFacts(c, "mark")).stored;
    const found = new Map((verdict?.figures ?? []).map((f) => [f.text, f.found]));
    const lang = byLang[c.lang] ?? { unsupported: 0, caught: 0, supported: 0, falseFlags: 0 };
    byLang[c.lang] = lang;
    for (const e of c.expect) {
      const detected = found.has(e.text);
      if (!detected) notDetected++;
      const flagged = detected && found.get(e.text) === null;
      if (e.supported) {
        supported++;
        lang.supported++;
        if (flagged) {
          falseFlags++;
          lang.falseFlags++;
        }
      } else {
        unsupported++;
        lang.unsupported++;
        if (flagged) {
          caught++;
          lang.caught++;
        }
      }
    }
  }
  // Warm up, then measure: the first calls compile the patterns.
  cpuMsPerTurn("mark", 20);
  const rounds = opts.quick ? 100 : 500;
  const result: FiguresResult = {
    cases: CORPUS.length,
    figures: unsupported + supported,
    unsupported,
    caught,
    recall: ratio(caught, unsupported),
    supported,
    falseFlags,
    falseFlagRate: supported === 0 ? 0 : ratio(falseFlags, supported),
    precision: ratio(caught, caught + falseFlags),
    notDetected,
    byLang,
    cpuMsPerTurnOn: cpuMsPerTurn("mark", rounds),
    cpuMsPerTurnOff: cpuMsPerTurn("off", rounds),
  };
  opts.log(
    `  figures: recall ${result.recall} (${caught}/${unsupported}), false flags ${result.falseFlagRate} (${falseFlags}/${supported}), check ${result.cpuMsPerTurnOn} ms CPU per turn (off: ${result.cpuMsPerTurnOff} ms)`,
  );
  return result;
}
