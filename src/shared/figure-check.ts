// The figure check's shapes and words, shared by the turn (which checks and stores), the admin (which shows
// the verdict) and the widget (which shows the note it is sent). Plain code.

import type { Lang } from "./languages";

/**
 * What a bot does with an answer stating a figure none of the turn's sources states: nothing (`off`), a
 * discreet note under it (`mark`, the default: the visitor still reads the answer, and a figure written
 * correctly in a way the check cannot read costs only a note), or the answer replaced by an honest sentence
 * and the offer of a person (`hold`).
 */
export type FigureCheckMode = "off" | "mark" | "hold";

export const FIGURE_CHECK_MODES: readonly FigureCheckMode[] = ["off", "mark", "hold"];
export const FIGURE_CHECK_DEFAULT: FigureCheckMode = "mark";

export type FigureKindName = "money" | "time" | "date" | "phone" | "email" | "percent" | "quantity";

/** One figure of an answer and where the turn's sources state it (`found` null: nowhere). */
export type CheckedFigure = { text: string; kind: FigureKindName; found: string | null };

/** Stored with the answer (messages.figure_check): absent when the check was off or found no figure. */
export type StoredFigureCheck = {
  mode: "mark" | "hold";
  figures: CheckedFigure[];
  unsupported: number;
  /** Hold mode replaced the answer: what the model had written, for the transcript only. */
  held?: string;
};

const NOTE: Record<Lang, string> = {
  en: "Please check this figure with us.",
  es: "Por favor, confirme esta cifra con nosotros.",
  fr: "Merci de vérifier ce chiffre auprès de nous.",
  de: "Bitte prüfen Sie diese Angabe bei uns nach.",
  ja: "この数値は念のため当店にご確認ください。",
};

const HELD: Record<Lang, string> = {
  en: "I'd rather not give you a figure I can't confirm from our own information. A person from our team can tell you for sure: would you like to leave your details?",
  es: "Prefiero no darle una cifra que no puedo confirmar con nuestra propia información. Una persona de nuestro equipo puede decírselo con seguridad: ¿quiere dejarnos sus datos?",
  fr: "Je préfère ne pas vous donner un chiffre que je ne peux pas confirmer avec nos propres informations. Une personne de notre équipe peut vous le dire avec certitude : voulez-vous nous laisser vos coordonnées ?",
  de: "Ich nenne Ihnen lieber keine Angabe, die ich mit unseren eigenen Informationen nicht bestätigen kann. Eine Person aus unserem Team kann es Ihnen sicher sagen: Möchten Sie uns Ihre Kontaktdaten hinterlassen?",
  ja: "当店の情報で確認できない数値はお伝えしないことにしています。担当者が確実にお答えしますので、ご連絡先を残していただけますか？",
};

/** The note under a marked answer, in the visitor's language. */
export const figureNote = (lang: Lang | undefined): string => NOTE[lang ?? "en"];

/** What a held answer says instead, in the visitor's language. */
export const heldAnswer = (lang: Lang | undefined): string => HELD[lang ?? "en"];
