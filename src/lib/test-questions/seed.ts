import "server-only";
import { findFigures, readingFor } from "@/lib/chat/figures/detect";
import type { TenantTx } from "@/lib/db/client";
import { listAnswers } from "@/lib/db/queries/knowledge-answers";
import {
  type IndexedPage,
  indexedPagesForTests,
  ratedDownQuestions,
} from "@/lib/db/queries/test-question-sources";
import type { TestExpect, TestQuestionOrigin } from "@/lib/db/schema";
import { unansweredReport } from "@/lib/insights/unanswered";
import { langOf } from "@/shared/languages";
import { QUESTION_MAX } from "./input";

// Where the one-click seeds come from: what the business already wrote or was asked. Each seed gives the
// question the checks that can be read from its source without a model: a curated answer's figures must be
// in the answer, a page's question must cite that page, and every seeded question states no figure its
// sources do not state.

export type SeedSource = "answers" | "unanswered" | "rated_down" | "site";
export type Seed = { question: string; expect: TestExpect; origin: TestQuestionOrigin };

const MAX_SEED = 100;
const cut = (q: string) => q.trim().replace(/\s+/g, " ").slice(0, QUESTION_MAX);

// "Bakery Hours | Example Bakery" → "Bakery Hours": the part before the site's name.
const SEPARATOR = /\s+[|–—·:-]\s+/;

function topicOf(page: IndexedPage): string | null {
  const fromTitle = page.title.split(SEPARATOR)[0]?.trim() ?? "";
  // A heading path is "Page > Section"; the first heading names the page when the title is only the site's.
  const heading = page.headings[0]?.split(" > ")[0]?.trim() ?? "";
  const pathTopic = decodeURIComponent(new URL(page.url).pathname.split("/").filter(Boolean).pop() ?? "")
    .replace(/\.[a-z]+$/i, "")
    .replace(/[-_]+/g, " ")
    .trim();
  const topic = fromTitle.length >= 3 ? fromTitle : heading || pathTopic;
  return topic.length >= 2 ? topic.slice(0, 120) : null;
}

/** A visitor's question about a topic, in the page's language (the five the widget speaks). */
const ASK: Record<string, (t: string) => string> = {
  en: (t) => `What can you tell me about ${t}?`,
  es: (t) => `¿Qué me puede decir sobre ${t}?`,
  fr: (t) => `Que pouvez-vous me dire sur ${t} ?`,
  de: (t) => `Was können Sie mir über ${t} sagen?`,
  ja: (t) => `${t}について教えてください。`,
};

export function siteQuestions(pages: IndexedPage[]): Seed[] {
  const out: Seed[] = [];
  for (const p of pages) {
    const topic = topicOf(p);
    if (!topic) continue;
    const ask = ASK[langOf(p.lang) ?? "en"] ?? ASK.en!;
    out.push({
      question: cut(ask(topic)),
      expect: { citeUrl: p.url, noUnsupportedFigures: true },
      origin: "site",
    });
  }
  return out;
}

export async function seedsFrom(tx: TenantTx, tenantId: string, from: SeedSource): Promise<Seed[]> {
  switch (from) {
    case "answers":
      return (await listAnswers(tx)).flatMap((a) => {
        const q = a.questions[0];
        if (!q) return [];
        const figures = findFigures(a.answer, readingFor(langOf(a.lang)))
          .map((f) => f.text.trim())
          .slice(0, 3);
        return [
          {
            question: cut(q),
            expect: { ...(figures.length ? { mustContain: figures } : {}), noUnsupportedFigures: true },
            origin: "answers" as const,
          },
        ];
      });
    case "unanswered":
      return (await unansweredReport(tx, tenantId))
        .filter((g) => !g.why.every((w) => w === "outage"))
        .slice(0, MAX_SEED)
        .map((g) => ({
          question: cut(g.question),
          expect: { noUnsupportedFigures: true },
          origin: "unanswered",
        }));
    case "rated_down":
      return (await ratedDownQuestions(tx, MAX_SEED)).map((q) => ({
        question: cut(q),
        expect: { noUnsupportedFigures: true },
        origin: "rated_down",
      }));
    case "site":
      return siteQuestions(await indexedPagesForTests(tx));
  }
}
