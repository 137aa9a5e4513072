import "server-only";
import type { Lang } from "@/shared/languages";

/** What a figure is: the things a visitor acts on. `number` is a bare number, found in sources only. */
export type FigureKind = "money" | "time" | "date" | "phone" | "email" | "percent" | "quantity" | "number";

export type Figure = {
  kind: FigureKind;
  /** As written (after Unicode compatibility folding: full-width digits become ASCII). */
  text: string;
  start: number;
  end: number;
  /**
   * What it can mean, normalised per kind: amounts as canon() strings, times as minutes of the day, dates as
   * "month-day", phones as digits, e-mails lower case. Several when the writing is ambiguous.
   */
  values: string[];
  /** Money: ISO code, or "$" for any dollar; absent when no currency was written. */
  currency?: string;
  /** A bare number that is one end of a range ("9–17"): it may be an hour. */
  range?: boolean;
};

/**
 * Where figures are looked for: `lang` reads the answer's numbers its language's way; without it (a source)
 * every reading counts.
 */
export type Reading = { lang?: Lang; phoneCountry: "US" | "ES" | "FR" | "DE" | "JP" };

/** Text whose found figures are blanked out, so one writing is claimed by one figure only. */
export class Masked {
  text: string;
  readonly original: string;
  readonly figures: Figure[] = [];
  constructor(source: string) {
    this.text = source;
    this.original = source;
  }
  take(figure: Omit<Figure, "text">): void {
    this.figures.push({ ...figure, text: this.original.slice(figure.start, figure.end) });
    this.blank(figure.start, figure.end);
  }
  blank(start: number, end: number): void {
    this.text = this.text.slice(0, start) + " ".repeat(end - start) + this.text.slice(end);
  }
}
