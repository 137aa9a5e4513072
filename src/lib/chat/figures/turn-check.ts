import "server-only";
import type { ChatEvent } from "@/shared/chat-events";
import {
  FIGURE_CHECK_DEFAULT,
  type FigureCheckMode,
  figureNote,
  heldAnswer,
  type StoredFigureCheck,
} from "@/shared/figure-check";
import type { Lang } from "@/shared/languages";
import { checkFigures, turnSources } from "./check";

// The figure check at the end of a turn: the one call the turn makes. It runs on a complete answer, after
// the stream and before the store, so the verdict is stored with the answer in the same statement and
// reaches the visitor as one event before `done`.

export type FigureCheckOutcome = {
  /** What is stored and shown from now on: the answer, or in hold mode the honest sentence. */
  content: string;
  stored: StoredFigureCheck | null;
  /** The event for the visitor; null when every figure was found. */
  event: ChatEvent | null;
};

type TurnFacts = {
  mode: FigureCheckMode | undefined;
  lang: Lang | undefined;
  message: string;
  instructions: string | undefined;
  answer: string;
  runs: readonly { packId: string; result: string; outcome: string }[];
};

export function checkTurnFigures(t: TurnFacts): FigureCheckOutcome {
  const mode = t.mode ?? FIGURE_CHECK_DEFAULT;
  if (mode === "off") return { content: t.answer, stored: null, event: null };
  const verdict = checkFigures(
    t.answer,
    turnSources(t.runs, { message: t.message, instructions: t.instructions }),
    t.lang,
  );
  if (verdict.figures.length === 0) return { content: t.answer, stored: null, event: null };
  const stored: StoredFigureCheck = { mode, figures: verdict.figures, unsupported: verdict.unsupported };
  if (verdict.unsupported === 0) return { content: t.answer, stored, event: null };
  if (mode === "mark") {
    return {
      content: t.answer,
      stored,
      event: { type: "check", data: { action: "mark", note: figureNote(t.lang) } },
    };
  }
  // Hold: the visitor's history, the model's next turn and a channel's reply all read the honest sentence;
  // the owner reads what the model had written in the transcript.
  const text = heldAnswer(t.lang);
  return {
    content: text,
    stored: { ...stored, held: t.answer },
    event: { type: "check", data: { action: "hold", text } },
  };
}
