import { describe, expect, it } from "vitest";
import { checkFigures } from "@/lib/chat/figures/check";
import { CORPUS } from "../fixtures/figures/corpus";

// The figure check over the corpus of real menus, price lists and opening hours in five languages
// (tests/fixtures/figures/corpus.ts, each case with its page): every figure of each answer is found, and
// each is supported exactly when its source states it, however either side wrote it.

describe("figure check corpus", () => {
  for (const c of CORPUS) {
    it(`${c.lang}: ${c.id}`, () => {
      const verdict = checkFigures(c.answer, [{ label: "page", text: c.source }], c.lang);
      const got = verdict.figures.map((f) => ({ text: f.text, supported: f.found !== null }));
      expect(got).toEqual(c.expect);
    });
  }

  it("reads the same figure written differently as the same", () => {
    const one = (answer: string, source: string, lang: "en" | "es" | "fr" | "de" | "ja" = "en") =>
      checkFigures(answer, [{ label: "s", text: source }], lang).figures.map((f) => f.found !== null);
    expect(one("We open at 9 am.", "opens: 09:00")).toEqual([true]);
    expect(one("It costs €5.", "price 5,00 €")).toEqual([true]);
    expect(one("Es kostet 5 EUR.", "Preis: €5", "de")).toEqual([true]);
    expect(one("Kostet 1.234,50 €.", "price: 1234.5", "de")).toEqual([true]);
    expect(one("It costs $1,234.50.", "Preis 1.234,50", "en")).toEqual([true]);
    // A slip is caught whichever way it is written.
    expect(one("We open at 9 pm.", "opens: 09:00")).toEqual([false]);
    expect(one("It costs 5 USD.", "price 5,00 €")).toEqual([false]);
    expect(one("Kostet 1.243,50 €.", "price: 1234.5", "de")).toEqual([false]);
  });

  it("covers the five languages", () => {
    expect(new Set(CORPUS.map((c) => c.lang))).toEqual(new Set(["en", "es", "fr", "de", "ja"]));
  });
});
