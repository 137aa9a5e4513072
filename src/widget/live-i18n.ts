// The words of a live conversation with a person (issue #28), one table per language. Like src/shared/handoff-words.ts,
// the server embeds only the visitor's language in the panel page, so the bundle carries no dictionaries.

import type { Lang } from "@/shared/languages";

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
};

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
  },
};
