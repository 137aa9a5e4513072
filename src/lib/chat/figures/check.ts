import "server-only";
import type { CheckedFigure } from "@/shared/figure-check";
import type { Lang } from "@/shared/languages";
import { findFigures, readingFor } from "./detect";
import type { Figure } from "./types";

// Checks each figure of an answer against what the turn had in hand: its pack results, the passages its
// knowledge searches returned, the bot's own instructions and the visitor's words. A figure is supported when
// one of those states the same thing, however it was written ("9 am" = "09:00", "€5" = "5,00 €" = "5 EUR");
// otherwise the model wrote it from nowhere the platform can see, which is what the business is told.

/** One text the turn's answer may draw on, with the name the transcript gives it. */
export type FigureSource = { label: string; text: string };

export type FigureVerdict = { figures: CheckedFigure[]; unsupported: number };

type Run = { packId: string; result: string; outcome: string };

/** Strings and numbers of a JSON result as "key: value" lines; not JSON: the text itself. */
function flatten(result: string): string {
  let value: unknown;
  try {
    value = JSON.parse(result);
  } catch {
    return result;
  }
  const lines: string[] = [];
  const walk = (v: unknown, key: string) => {
    if (v === null || v === undefined) return;
    if (typeof v === "object") {
      for (const [k, inner] of Array.isArray(v) ? v.entries() : Object.entries(v)) walk(inner, String(k));
      return;
    }
    lines.push(`${key}: ${String(v)}`);
  };
  walk(value, "");
  return lines.join("\n");
}

/** The turn's sources: each knowledge passage on its own (so the trace can name it), each pack result. */
export function turnSources(
  runs: readonly Run[],
  extra: { message: string; instructions?: string },
): FigureSource[] {
  const out: FigureSource[] = [];
  for (const r of runs) {
    if (r.outcome !== "ok") continue;
    const passages = r.packId === "search_knowledge" ? passagesOf(r.result) : null;
    if (passages) out.push(...passages);
    else out.push({ label: r.packId, text: flatten(r.result) });
  }
  if (extra.instructions) out.push({ label: "instructions", text: extra.instructions });
  out.push({ label: "visitor", text: extra.message });
  return out;
}

function passagesOf(result: string): FigureSource[] | null {
  try {
    const r = JSON.parse(result) as { passages?: unknown };
    if (!Array.isArray(r.passages)) return null;
    return r.passages.map((p: Record<string, unknown>) => ({
      label:
        `passage ${typeof p.n === "number" ? `[${p.n}] ` : ""}${String(p.title ?? p.document ?? "").slice(0, 80)}`.trim(),
      // The passage's words only: its number, address and score are the search's, not the business's.
      text: flatten(JSON.stringify({ ...p, n: undefined, url: undefined, score: undefined })),
    }));
  } catch {
    return null;
  }
}

const overlap = (a: string[], b: string[]) => a.some((v) => b.includes(v));

function phoneMatch(a: string, b: string): boolean {
  if (a === b) return true;
  const [short, long] = a.length < b.length ? [a, b] : [b, a];
  return short.length >= 7 && long.endsWith(short);
}

/** A bare number of a source ("9–17", "open 9 to 5") read as an hour, both ways round the clock. */
const hoursOf = (s: Figure) =>
  s.values.flatMap((v) => {
    const n = Number(v);
    return Number.isInteger(n) && n >= 0 && n <= 24
      ? [String((n % 24) * 60), String(((n + 12) % 24) * 60)]
      : [];
  });

function supports(a: Figure, s: Figure): boolean {
  switch (a.kind) {
    case "email":
      return s.kind === "email" && s.values[0] === a.values[0];
    case "phone":
      return s.kind === "phone" && phoneMatch(a.values[0]!, s.values[0]!);
    case "date":
      return s.kind === "date" && overlap(a.values, s.values);
    case "time":
      return (
        (s.kind === "time" && overlap(a.values, s.values)) ||
        (s.kind === "number" && s.range === true && overlap(a.values, hoursOf(s)))
      );
    case "money":
      if (s.kind === "number") return overlap(a.values, s.values);
      return (
        s.kind === "money" &&
        overlap(a.values, s.values) &&
        (!a.currency || !s.currency || a.currency === s.currency)
      );
    case "percent":
    case "quantity":
      return (s.kind === a.kind || s.kind === "number") && overlap(a.values, s.values);
    default:
      return false;
  }
}

/** The answer's figures, each with the first source that states it (null: none does). */
export function checkFigures(answer: string, sources: readonly FigureSource[], lang?: Lang): FigureVerdict {
  const found = findFigures(answer, readingFor(lang));
  if (found.length === 0) return { figures: [], unsupported: 0 };
  // Sources are read only when the answer states a figure: most answers cost nothing more.
  const sourceReading = { ...readingFor(lang), lang: undefined };
  const read = sources.map((src) => ({
    label: src.label,
    figures: findFigures(src.text, sourceReading, { bareNumbers: true }),
  }));
  const figures = found.map((a): CheckedFigure => {
    const where = read.find((src) => src.figures.some((s) => supports(a, s)));
    return { text: a.text.trim(), kind: a.kind as CheckedFigure["kind"], found: where?.label ?? null };
  });
  return { figures, unsupported: figures.filter((f) => f.found === null).length };
}
