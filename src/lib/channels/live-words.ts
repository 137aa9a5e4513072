import "server-only";
import { type Lang, langOrEnglish } from "../../shared/languages";

// What a person on WhatsApp or Telegram reads when a live conversation with the business's team starts or
// ends: the widget's own live words (src/widget/live-i18n.ts), reworded where the widget shows a form or a
// button a channel does not have. The bot's language decides, as for every platform message on a channel.

type LiveWords = {
  waiting: string;
  /** Nobody online: the person leaves their details by replying, and the team reads them in the console. */
  nobody: string;
  outsideHours: string;
  backToBot: string;
  closed: string;
};

const WORDS: Record<Lang, LiveWords> = {
  en: {
    waiting: "Someone will be with you shortly. You can keep writing in the meantime.",
    nobody:
      "Nobody is available to chat right now. Reply with your name and how to reach you, and a person will get back to you.",
    outsideHours:
      "We are not available to chat at this hour. Reply with your name and how to reach you, and a person will get back to you.",
    backToBot: "You are talking with the assistant again.",
    closed: "The conversation with a person has ended. The assistant will answer your next message.",
  },
  es: {
    waiting: "Alguien te atenderá en breve. Mientras tanto, puedes seguir escribiendo.",
    nobody:
      "Ahora mismo no hay nadie disponible para chatear. Responde con tu nombre y cómo contactarte, y una persona te contactará.",
    outsideHours:
      "A esta hora no atendemos por chat. Responde con tu nombre y cómo contactarte, y una persona te contactará.",
    backToBot: "Vuelves a hablar con el asistente.",
    closed: "La conversación con una persona ha terminado. El asistente responderá a tu próximo mensaje.",
  },
  fr: {
    waiting: "Quelqu'un va vous répondre sous peu. Vous pouvez continuer à écrire en attendant.",
    nobody:
      "Personne n'est disponible pour discuter en ce moment. Répondez avec votre nom et un moyen de vous joindre, et une personne vous recontactera.",
    outsideHours:
      "Nous ne sommes pas disponibles pour discuter à cette heure. Répondez avec votre nom et un moyen de vous joindre, et une personne vous recontactera.",
    backToBot: "Vous parlez de nouveau avec l'assistant.",
    closed: "La conversation avec une personne est terminée. L'assistant répondra à votre prochain message.",
  },
  de: {
    waiting: "Gleich ist jemand für Sie da. Sie können in der Zwischenzeit weiterschreiben.",
    nobody:
      "Gerade ist niemand für einen Chat erreichbar. Antworten Sie mit Ihrem Namen und wie wir Sie erreichen, dann meldet sich jemand bei Ihnen.",
    outsideHours:
      "Zu dieser Uhrzeit sind wir nicht im Chat erreichbar. Antworten Sie mit Ihrem Namen und wie wir Sie erreichen, dann meldet sich jemand bei Ihnen.",
    backToBot: "Sie sprechen wieder mit dem Assistenten.",
    closed: "Das Gespräch mit einer Person ist beendet. Der Assistent beantwortet Ihre nächste Nachricht.",
  },
  ja: {
    waiting: "まもなく担当者が対応します。その間もメッセージを送れます。",
    nobody:
      "現在チャットできる担当者がいません。お名前と連絡先を返信していただければ、担当者からご連絡します。",
    outsideHours:
      "この時間はチャットに対応していません。お名前と連絡先を返信していただければ、担当者からご連絡します。",
    backToBot: "再びアシスタントと会話しています。",
    closed: "担当者との会話は終了しました。次のメッセージにはアシスタントが回答します。",
  },
};

/**
 * The "Talk to a person" button on a channel, in the bot's language: short enough for a WhatsApp reply
 * button's 20 characters (the widget's "Hablar con una persona" is not), and one of the words below, so a
 * person who types what the button says gets exactly what the tap gives.
 */
const PERSON_BUTTON: Record<Lang, string> = {
  en: "Talk to a person",
  es: "Hablar con alguien",
  fr: "Parler à quelqu'un",
  de: "Mit jemandem reden",
  ja: "担当者と話す",
};

export function personButtonLabel(language: string | undefined): string {
  return PERSON_BUTTON[langOrEnglish(language)];
}

export function liveWords(language: string | undefined): LiveWords {
  return WORDS[langOrEnglish(language)];
}

// A plain request for a person, matched on the whole message (case- and accent-blind): the widget menu's
// "Talk to a person" in each of its languages, and the one word most people send. Anything longer goes to
// the assistant, which offers a person itself (request_human) when that is what the person wants.
const ASK = new Set([
  "talk to a person",
  "human",
  "agent",
  "hablar con una persona",
  "hablar con alguien",
  "humano",
  "agente",
  "parler a une personne",
  "parler a quelqu'un",
  "humain",
  "conseiller",
  "mit einem menschen sprechen",
  "mit einer person sprechen",
  "mit jemandem reden",
  "mensch",
  "mitarbeiter",
  "担当者と話す",
  "担当者",
]);

const fold = (text: string) =>
  text
    .normalize("NFD")
    .replace(/\p{M}/gu, "")
    .trim()
    .toLowerCase()
    // Phones type a typographic apostrophe (quelqu’un) where the list has the plain one.
    .replace(/[\u2018\u2019]/g, "'")
    .replace(/\s+/g, " ")
    .replace(/[.!?。！？]+$/u, "");

export const isPersonRequest = (text: string) => ASK.has(fold(text));
