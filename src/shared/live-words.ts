import { type Lang, langOrEnglish } from "./languages";

// The words of a live conversation with a person (issue #28), one table for the widget and the channels. The
// widget's server embeds only the visitor's language in the panel page, so its bundle carries no dictionaries.
// A person on WhatsApp or Telegram reads the widget's own words, reworded (CHANNEL_WORDS) only where the
// widget shows a form or a button a channel does not have; the bot's language decides there.

export type LiveStrings = {
  asking: string;
  waiting: string;
  /** Waiting, with someone assigned; {name} is the person's name. */
  assigned: string;
  /** {name} is the person's name. */
  joined: string;
  backToBot: string;
  closed: string;
  /** Shown above the contact form when nobody can chat now. */
  nobody: string;
  /** Shown above the contact form outside the business's hours. */
  outsideHours: string;
  /** Waiting: the business's usual first answer; {min} is a number of minutes. */
  expected: string;
  /** Waiting longer than the business's alert delay: the way out to the contact form. */
  leaveEmail: string;
};

type ChannelLiveWords = Pick<LiveStrings, "waiting" | "nobody" | "outsideHours" | "backToBot" | "closed">;

export const LIVE_STRINGS: Record<Lang, LiveStrings> = {
  en: {
    asking: "Asking for a person…",
    waiting: "Someone will be with you shortly. You can keep typing in the meantime.",
    assigned: "{name} will be with you shortly. You can keep typing in the meantime.",
    joined: "{name} joined the conversation.",
    backToBot: "You are talking with the assistant again.",
    closed: "The conversation with a person has ended. The assistant will answer your next message.",
    nobody: "Nobody is available to chat right now. Leave your details and a person will get back to you.",
    outsideHours:
      "We are not available to chat at this hour. Leave your details and a person will get back to you.",
    expected: "People here usually answer within {min} min.",
    leaveEmail: "Leave your e-mail instead",
  },
  es: {
    asking: "Buscando a una persona…",
    waiting: "Alguien te atenderá en breve. Mientras tanto, puedes seguir escribiendo.",
    assigned: "{name} te atenderá en breve. Mientras tanto, puedes seguir escribiendo.",
    joined: "{name} se ha unido a la conversación.",
    backToBot: "Vuelves a hablar con el asistente.",
    closed: "La conversación con una persona ha terminado. El asistente responderá a tu próximo mensaje.",
    nobody: "Ahora mismo no hay nadie disponible para chatear. Deja tus datos y una persona te contactará.",
    outsideHours: "A esta hora no atendemos por chat. Deja tus datos y una persona te contactará.",
    expected: "Aquí solemos responder en {min} min.",
    leaveEmail: "Prefiero dejar mi correo",
  },
  fr: {
    asking: "Recherche d'une personne…",
    waiting: "Quelqu'un va vous répondre sous peu. Vous pouvez continuer à écrire en attendant.",
    assigned: "{name} va vous répondre sous peu. Vous pouvez continuer à écrire en attendant.",
    joined: "{name} a rejoint la conversation.",
    backToBot: "Vous parlez de nouveau avec l'assistant.",
    closed: "La conversation avec une personne est terminée. L'assistant répondra à votre prochain message.",
    nobody:
      "Personne n'est disponible pour discuter en ce moment. Laissez vos coordonnées et une personne vous recontactera.",
    outsideHours:
      "Nous ne sommes pas disponibles pour discuter à cette heure. Laissez vos coordonnées et une personne vous recontactera.",
    expected: "Nous répondons d'habitude en {min} min.",
    leaveEmail: "Laisser plutôt mon e-mail",
  },
  de: {
    asking: "Wir holen eine Person dazu…",
    waiting: "Gleich ist jemand für Sie da. Sie können in der Zwischenzeit weiterschreiben.",
    assigned: "Gleich ist {name} für Sie da. Sie können in der Zwischenzeit weiterschreiben.",
    joined: "{name} ist dem Gespräch beigetreten.",
    backToBot: "Sie sprechen wieder mit dem Assistenten.",
    closed: "Das Gespräch mit einer Person ist beendet. Der Assistent beantwortet Ihre nächste Nachricht.",
    nobody:
      "Gerade ist niemand für einen Chat erreichbar. Hinterlassen Sie Ihre Kontaktdaten, dann meldet sich jemand bei Ihnen.",
    outsideHours:
      "Zu dieser Uhrzeit sind wir nicht im Chat erreichbar. Hinterlassen Sie Ihre Kontaktdaten, dann meldet sich jemand bei Ihnen.",
    expected: "Wir antworten meist innerhalb von {min} Min.",
    leaveEmail: "Lieber E-Mail hinterlassen",
  },
  ja: {
    asking: "担当者を呼んでいます…",
    waiting: "まもなく担当者が対応します。その間もメッセージを入力できます。",
    assigned: "まもなく{name}が対応します。その間もメッセージを入力できます。",
    joined: "{name}が会話に参加しました。",
    backToBot: "再びアシスタントと会話しています。",
    closed: "担当者との会話は終了しました。次のメッセージにはアシスタントが回答します。",
    nobody: "現在チャットできる担当者がいません。連絡先を残していただければ、担当者からご連絡します。",
    outsideHours:
      "この時間はチャットに対応していません。連絡先を残していただければ、担当者からご連絡します。",
    expected: "通常{min}分以内に担当者が対応します。",
    leaveEmail: "代わりにメールアドレスを残す",
  },
};

/** Where a channel's words differ from the widget's: no contact form (the person replies), "writing". */
const CHANNEL_WORDS: Record<Lang, Pick<LiveStrings, "waiting" | "nobody" | "outsideHours">> = {
  en: {
    waiting: "Someone will be with you shortly. You can keep writing in the meantime.",
    nobody:
      "Nobody is available to chat right now. Reply with your name and how to reach you, and a person will get back to you.",
    outsideHours:
      "We are not available to chat at this hour. Reply with your name and how to reach you, and a person will get back to you.",
  },
  es: {
    waiting: "Alguien te atenderá en breve. Mientras tanto, puedes seguir escribiendo.",
    nobody:
      "Ahora mismo no hay nadie disponible para chatear. Responde con tu nombre y cómo contactarte, y una persona te contactará.",
    outsideHours:
      "A esta hora no atendemos por chat. Responde con tu nombre y cómo contactarte, y una persona te contactará.",
  },
  fr: {
    waiting: "Quelqu'un va vous répondre sous peu. Vous pouvez continuer à écrire en attendant.",
    nobody:
      "Personne n'est disponible pour discuter en ce moment. Répondez avec votre nom et un moyen de vous joindre, et une personne vous recontactera.",
    outsideHours:
      "Nous ne sommes pas disponibles pour discuter à cette heure. Répondez avec votre nom et un moyen de vous joindre, et une personne vous recontactera.",
  },
  de: {
    waiting: "Gleich ist jemand für Sie da. Sie können in der Zwischenzeit weiterschreiben.",
    nobody:
      "Gerade ist niemand für einen Chat erreichbar. Antworten Sie mit Ihrem Namen und wie wir Sie erreichen, dann meldet sich jemand bei Ihnen.",
    outsideHours:
      "Zu dieser Uhrzeit sind wir nicht im Chat erreichbar. Antworten Sie mit Ihrem Namen und wie wir Sie erreichen, dann meldet sich jemand bei Ihnen.",
  },
  ja: {
    waiting: "まもなく担当者が対応します。その間もメッセージを送れます。",
    nobody:
      "現在チャットできる担当者がいません。お名前と連絡先を返信していただければ、担当者からご連絡します。",
    outsideHours:
      "この時間はチャットに対応していません。お名前と連絡先を返信していただければ、担当者からご連絡します。",
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

/** A channel's live words in the bot's language. */
export function liveWords(language: string | undefined): ChannelLiveWords {
  const lang = langOrEnglish(language);
  const { backToBot, closed } = LIVE_STRINGS[lang];
  return { ...CHANNEL_WORDS[lang], backToBot, closed };
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
