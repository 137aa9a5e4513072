import "server-only";
import { checkFigures } from "@/lib/chat/figures/check";
import type { TestExpect } from "@/lib/db/schema";
import type { Citation } from "@/shared/citations";
import type { CheckedFigure } from "@/shared/figure-check";
import type { Lang } from "@/shared/languages";

// Whether one answer does what its test question asks, with every reason in words an owner reads. Pure: the
// runner (./run.ts) gathers the facts of the answer (with the model, or from retrieval alone) and this file
// judges them, so the rules are tested without a model.

export type AnswerFacts = {
  /** What the visitor would read. */
  answer: string;
  citations: Citation[];
  /** Packs the answer used (ran without an error). */
  packs: string[];
  /** The answer offered a person (the hand-off pack ran, or the contact form was shown). */
  handoff: boolean;
  /** The figure check's figures; null when it could not run (retrieval alone has no answer of the model). */
  figures: CheckedFigure[] | null;
  lang?: Lang;
  /** Retrieval alone: nothing relevant was found, which is what "does not know" means without a model. */
  nothingFound?: boolean;
};

export type Verdict = { pass: boolean; reasons: string[] };

/** Case, accents and spacing do not matter: "Café" matches "cafe". Full-width forms fold to ASCII. */
export function fold(s: string): string {
  return s
    .normalize("NFKD")
    .replace(/\p{M}+/gu, "")
    .toLowerCase()
    .replace(/\s+/g, " ")
    .trim();
}

/**
 * Whether the answer contains the owner's term. A term with a digit is also a figure: "€5" is found in an
 * answer saying "5,00 €", "9 am" in one saying "09:00" (the figure check's own normalising).
 */
export function containsTerm(answer: string, term: string, lang?: Lang): boolean {
  if (fold(answer).includes(fold(term))) return true;
  if (!/\d/.test(term)) return false;
  const v = checkFigures(term, [{ label: "answer", text: answer }], lang);
  return v.figures.length > 0 && v.unsupported === 0;
}

// "I don't know" in the widget's five languages, as models word it. A miss here fails the check, and the
// reason says so, so the owner can add the words the bot really uses as "contains" instead.
const UNKNOWN = [
  /\b(?:do not|don't|dont|cannot|can't|could not|couldn't) (?:know|find|say|tell|help with)/,
  /\bnot sure\b/,
  /\bno (?:information|details|answer)\b/,
  /\b(?:unable|not able) to\b/,
  /\bno (?:lo )?se\b|\bno tengo (?:informacion|datos)\b|\bno (?:encontre|he encontrado)\b/,
  /\bje ne (?:sais|peux) pas\b|\bpas d'information\b|\bje n'ai pas (?:trouve|d'information)\b/,
  /\b(?:weiss|weiß) ich (?:\S+ ){0,2}nicht\b|\bkeine (?:informationen?|angaben)\b|\bnicht (?:gefunden|sagen)\b/,
  /わかりません|分かりません|存じません|情報がありません|見つかりません/,
];
const PERSON =
  /\b(?:a person|someone from|a colleague|our team|contact us|staff member|una persona|nuestro equipo|une personne|notre equipe|einen? (?:mitarbeiter|menschen)|unser team)\b|担当者|スタッフ/;

export function saysUnknown(facts: AnswerFacts): boolean {
  if (facts.handoff || facts.nothingFound) return true;
  const text = fold(facts.answer);
  return UNKNOWN.some((re) => re.test(text)) || PERSON.test(text);
}

const sameUrl = (a: string, b: string) => a.replace(/\/+$/, "") === b.replace(/\/+$/, "");

export function judge(expect: TestExpect, facts: AnswerFacts): Verdict {
  const reasons: string[] = [];
  if (!facts.answer.trim() && !facts.nothingFound) reasons.push("There was no answer.");
  if (expect.citeUrl && !facts.citations.some((c) => c.url && sameUrl(c.url, expect.citeUrl!))) {
    reasons.push(
      facts.citations.length
        ? `It did not cite ${expect.citeUrl}; it cited ${facts.citations.map((c) => c.url ?? c.title).join(", ")}.`
        : `It did not cite ${expect.citeUrl}; it cited no page.`,
    );
  }
  if (expect.pack && !facts.packs.includes(expect.pack)) {
    reasons.push(
      facts.packs.length
        ? `It did not use the ${expect.pack} pack (it used ${facts.packs.join(", ")}).`
        : `It did not use the ${expect.pack} pack (it used none).`,
    );
  }
  const missing = (expect.mustContain ?? []).filter((t) => !containsTerm(facts.answer, t, facts.lang));
  if (missing.length) reasons.push(`It does not contain ${missing.map((t) => `“${t}”`).join(", ")}.`);
  const forbidden = (expect.mustNotContain ?? []).filter((t) => containsTerm(facts.answer, t, facts.lang));
  if (forbidden.length)
    reasons.push(`It contains ${forbidden.map((t) => `“${t}”`).join(", ")}, which it must not.`);
  if (expect.sayUnknown && !saysUnknown(facts)) {
    reasons.push("It did not say it does not know, nor offer a person.");
  }
  if (expect.noUnsupportedFigures && facts.figures) {
    const unsupported = facts.figures.filter((f) => f.found === null).map((f) => `“${f.text}”`);
    if (unsupported.length) {
      reasons.push(`It states ${unsupported.join(", ")}, which none of its sources states.`);
    }
  }
  return { pass: reasons.length === 0, reasons };
}

/** What the owner asked for, in one line per check (the page and the mail show it). */
export function describeExpect(e: TestExpect): string[] {
  const out: string[] = [];
  if (e.citeUrl) out.push(`cites ${e.citeUrl}`);
  if (e.pack) out.push(`uses the ${e.pack} pack`);
  if (e.mustContain?.length) out.push(`contains ${e.mustContain.map((t) => `“${t}”`).join(", ")}`);
  if (e.mustNotContain?.length)
    out.push(`never contains ${e.mustNotContain.map((t) => `“${t}”`).join(", ")}`);
  if (e.sayUnknown) out.push("says it does not know, or offers a person");
  if (e.noUnsupportedFigures) out.push("states no figure its sources do not state");
  return out;
}
