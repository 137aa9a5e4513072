import "server-only";
import { z } from "zod";
import type { TestExpect } from "@/lib/db/schema";
import { AppError } from "@/lib/errors";

// A test question as the form, the CSV file and the seeds hand it in, checked once here.

export const QUESTION_MAX = 500;
const TERM_MAX = 200;
const TERMS_MAX = 20;
/** A business's list stays readable and a run affordable. */
export const QUESTIONS_MAX = 300;

/** One term a line (or, in a CSV cell, separated by "|"); empty lines dropped. */
const terms = (label: string) =>
  z
    .string()
    .max(TERMS_MAX * (TERM_MAX + 2), { error: `${label}: too long.` })
    .optional()
    .transform((v) =>
      (v ?? "")
        .split(/\r?\n|\|/)
        .map((t) => t.trim())
        .filter(Boolean),
    )
    .refine((a) => a.length <= TERMS_MAX, { error: `${label}: at most ${TERMS_MAX}.` })
    .refine((a) => a.every((t) => t.length <= TERM_MAX), {
      error: `${label}: each at most ${TERM_MAX} characters.`,
    });

const flag = z
  .union([z.boolean(), z.string()])
  .optional()
  .transform((v) => v === true || (typeof v === "string" && /^(on|true|yes|1)$/i.test(v.trim())));

export const questionSchema = z.object({
  question: z
    .string()
    .trim()
    .min(1, { error: "Write the question as a visitor would ask it." })
    .max(QUESTION_MAX, { error: `At most ${QUESTION_MAX} characters.` }),
  citeUrl: z
    .string()
    .trim()
    .optional()
    .refine((v) => !v || /^https?:\/\/\S+$/.test(v), {
      error: "Pick a page from the list, or leave it empty.",
    }),
  pack: z
    .string()
    .trim()
    .max(64)
    .optional()
    .refine((v) => !v || /^[a-z0-9_]+$/.test(v), { error: "Pick a pack from the list, or leave it empty." }),
  mustContain: terms("Contains"),
  mustNotContain: terms("Never contains"),
  sayUnknown: flag,
  noUnsupportedFigures: flag,
});

export type QuestionInput = { question: string; expect: TestExpect };

/** The checked question and its expectations; throws invalid_input naming every bad field at once. */
export function parseQuestion(raw: unknown): QuestionInput {
  const parsed = questionSchema.safeParse(raw);
  if (!parsed.success) {
    const fieldErrors: Record<string, string[]> = {};
    for (const issue of parsed.error.issues) {
      const key = String(issue.path[0] ?? "question");
      fieldErrors[key] = [...(fieldErrors[key] ?? []), issue.message];
    }
    throw new AppError("invalid_input", "The test question could not be saved.", { fieldErrors });
  }
  const v = parsed.data;
  const expect: TestExpect = {
    ...(v.citeUrl ? { citeUrl: v.citeUrl } : {}),
    ...(v.pack ? { pack: v.pack } : {}),
    ...(v.mustContain.length ? { mustContain: v.mustContain } : {}),
    ...(v.mustNotContain.length ? { mustNotContain: v.mustNotContain } : {}),
    ...(v.sayUnknown ? { sayUnknown: true } : {}),
    ...(v.noUnsupportedFigures ? { noUnsupportedFigures: true } : {}),
  };
  return { question: v.question, expect };
}
