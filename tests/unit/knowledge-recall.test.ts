import { existsSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { formatRecall, loadQuestions, measureRecall, type QuestionSet } from "../../bench/knowledge/recall";
import { logingovDir } from "../support/knowledge-sites";

const ORIGIN = "https://localhost:8441";

describe("the Login.gov question set", () => {
  const set = loadQuestions();

  it("has at least 60 questions of every kind, each id once, unanswerable ones expecting nothing", () => {
    expect(set.questions.length).toBeGreaterThanOrEqual(60);
    const kinds = new Set(set.questions.map((q) => q.kind));
    for (const k of ["verbatim", "paraphrase", "typo", "es", "fr", "no-answer", "robots"])
      expect(kinds).toContain(k);
    expect(new Set(set.questions.map((q) => q.id)).size).toBe(set.questions.length);
    for (const q of set.questions) {
      const unanswerable = q.kind === "no-answer" || q.kind === "robots";
      expect(q.expect.length === 0, q.id).toBe(unanswerable);
      for (const p of q.expect)
        expect(
          set.disallowed.some((d) => p.startsWith(d)),
          `${q.id} expects ${p}`,
        ).toBe(false);
    }
  });

  const dir = logingovDir();
  it.skipIf(!dir)("names only pages that exist in the site copy", () => {
    for (const q of set.questions)
      for (const p of q.expect) expect(existsSync(path.join(dir ?? "", p)), `${q.id}: ${p}`).toBe(true);
  });
});

describe("measureRecall", () => {
  const set: QuestionSet = {
    site: "test",
    disallowed: ["/private/"],
    questions: [
      { id: "a", kind: "verbatim", query: "alpha", expect: ["/a.html"] },
      { id: "b", kind: "paraphrase", query: "beta", expect: ["/b.html", "/b2.html"] },
      { id: "c", kind: "typo", query: "gamma", expect: ["/c.html"] },
      { id: "n", kind: "no-answer", query: "nothing", expect: [] },
      { id: "r", kind: "robots", query: "secret", expect: [] },
    ],
  };

  it("counts a hit among the first k distinct pages, an empty answer to the unanswerable, and any result from a disallowed folder", async () => {
    const answers: Record<string, string[]> = {
      // several passages of one page count as one page, so /a.html is still within the first two pages
      alpha: ["/x.html", "/x.html", "/x.html", "/a.html"],
      // the second acceptable page counts
      beta: ["/b2.html"],
      // a right page beyond k is a miss
      gamma: ["/x.html", "/y.html", "/c.html"],
      nothing: [],
      secret: ["/private/s.html"],
    };
    const report = await measureRecall(async (q) => (answers[q] ?? []).map((p) => ({ url: ORIGIN + p })), {
      k: 2,
      set,
    });
    expect(report.answerable).toBe(3);
    expect(report.recall).toBeCloseTo(2 / 3, 6);
    expect(report.byKind.typo).toEqual({ n: 1, hits: 0, recall: 0 });
    expect(report.misses.map((m) => m.id)).toEqual(["c"]);
    expect(report.noAnswer).toEqual({ n: 2, empty: 1, accuracy: 0.5 });
    expect(report.robotsLeaks).toEqual([{ id: "r", url: `${ORIGIN}/private/s.html` }]);
    expect(formatRecall(report)).toContain("recall@2: 66.7% of 3 answerable questions");
  });

  it("treats a directory URL as its index page", async () => {
    const one: QuestionSet = {
      ...set,
      questions: [{ id: "i", kind: "verbatim", query: "home", expect: ["/index.html"] }],
    };
    const report = await measureRecall(async () => [{ url: `${ORIGIN}/` }], { set: one });
    expect(report.recall).toBe(1);
  });
});
