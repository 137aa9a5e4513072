import { describe, expect, it } from "vitest";
import { fromCsv, toCsv } from "@/lib/test-questions/csv";
import { type AnswerFacts, containsTerm, judge } from "@/lib/test-questions/expect";
import { siteQuestions } from "@/lib/test-questions/seed";

// The rules a test question's answer is judged by, and the CSV the list travels in (issue 42).

const facts = (over: Partial<AnswerFacts> = {}): AnswerFacts => ({
  answer: "",
  citations: [],
  packs: [],
  handoff: false,
  figures: [],
  lang: "en",
  ...over,
});

describe("judging an answer", () => {
  it("finds an owner's figure however the answer writes it, and words case- and accent-blind", () => {
    expect(containsTerm("Un corte cuesta 5,00 € [1].", "€5", "es")).toBe(true);
    expect(containsTerm("We open at 09:00.", "9 am", "en")).toBe(true);
    expect(containsTerm("Wir öffnen um 9 Uhr.", "10 am", "de")).toBe(false);
    expect(containsTerm("Our CAFÉ is on Main Street", "cafe")).toBe(true);
  });

  it("names every failed check in words", () => {
    const v = judge(
      {
        citeUrl: "https://shop.example/prices",
        pack: "get_menu",
        mustContain: ["25 €"],
        mustNotContain: ["free"],
        noUnsupportedFigures: true,
      },
      facts({
        answer: "Parking is free; a haircut is 30 €.",
        citations: [{ n: 1, title: "Home", url: "https://shop.example/" }],
        packs: ["search_knowledge"],
        figures: [{ text: "30 €", kind: "money", found: null }],
      }),
    );
    expect(v).toEqual({
      pass: false,
      reasons: [
        "It did not cite https://shop.example/prices; it cited https://shop.example/.",
        "It did not use the get_menu pack (it used search_knowledge).",
        "It does not contain “25 €”.",
        "It contains “free”, which it must not.",
        "It states “30 €”, which none of its sources states.",
      ],
    });
  });

  it("passes when the answer does what was asked, a trailing slash aside", () => {
    const v = judge(
      { citeUrl: "https://shop.example/prices/", mustContain: ["25 EUR"] },
      facts({
        answer: "25 € [1]",
        citations: [{ n: 1, title: "Prices", url: "https://shop.example/prices" }],
      }),
    );
    expect(v).toEqual({ pass: true, reasons: [] });
  });

  it("counts 'I don't know' in the widget's languages, an offer of a person, and nothing found", () => {
    const unknown = { sayUnknown: true };
    for (const answer of [
      "I'm sorry, I don't know that.",
      "Lo siento, no tengo información sobre eso.",
      "Je ne sais pas, désolé.",
      "Das weiß ich leider nicht.",
      "申し訳ありませんが、わかりません。",
      "I can put you in touch with a person from our team.",
    ])
      expect(judge(unknown, facts({ answer })).pass, answer).toBe(true);
    expect(judge(unknown, facts({ answer: "", nothingFound: true })).pass).toBe(true);
    expect(judge(unknown, facts({ answer: "Yes, bikes from 300 €." })).pass).toBe(false);
  });
});

describe("the CSV file", () => {
  it("travels there and back, quotes, line breaks and several terms included", () => {
    const rows = [
      {
        question: 'Is the "menu" online, and the prices?',
        expect: {
          citeUrl: "https://shop.example/menu",
          mustContain: ["12,50 €", "Burger"],
          sayUnknown: true,
        },
      },
      { question: "Line\nbreak?", expect: { mustNotContain: ["free"], noUnsupportedFigures: true } },
    ];
    expect(fromCsv(toCsv(rows))).toEqual(rows);
  });

  it("keeps a spreadsheet from running a cell as a formula, and reads it back as written", () => {
    const csv = toCsv([{ question: "=HYPERLINK(1)", expect: {} }]);
    expect(csv).toContain("'=HYPERLINK(1)");
    expect(fromCsv(csv)[0]!.question).toBe("=HYPERLINK(1)");
  });

  it("reads columns in any order and refuses a bad row by its line", () => {
    expect(fromCsv("contains,question\r\nfree,Parking?\r\n")).toEqual([
      { question: "Parking?", expect: { mustContain: ["free"] } },
    ]);
    expect(() => fromCsv("question,cite_url\r\nOk?,\r\nBad?,not a url\r\n")).toThrow(/^Line 3: /);
    expect(() => fromCsv("text\r\nhello\r\n")).toThrow(/"question"/);
  });
});

describe("questions from the site", () => {
  it("asks about each page in its language, from its title or first heading, and must cite it", () => {
    const seeds = siteQuestions([
      { url: "https://shop.example/hours", title: "Opening hours | Shop", lang: "en", headings: [] },
      { url: "https://shop.example/es/precios", title: "Shop", lang: "es", headings: ["Precios > Cortes"] },
      { url: "https://shop.example/ja/menu", title: "メニュー | Shop", lang: "ja", headings: [] },
    ]);
    expect(seeds.map((s) => s.question)).toEqual([
      "What can you tell me about Opening hours?",
      "¿Qué me puede decir sobre Shop?",
      "メニューについて教えてください。",
    ]);
    expect(seeds[0]!.expect).toEqual({ citeUrl: "https://shop.example/hours", noUnsupportedFigures: true });
  });
});
