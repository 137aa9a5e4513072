import "server-only";
import { type Lang, langOrEnglish } from "../../shared/languages";

// What the platform itself says to a person on a channel (the model says everything else), in the bot's
// language: the widget's languages, English when the bot has none of them.

type Words = {
  /** A picture, voice note, location… the assistant cannot read. */
  unsupported: string;
  optedOut: string;
  optedIn: string;
  /** The turn was refused (the month's budget, the model unavailable) or failed without an answer. */
  unavailable: string;
  /** The heading of the cited sources at the end of an answer (the widget's own word for them). */
  sources: string;
  /** A confirmation card's buttons (actions.ts), short enough for WhatsApp's 20 characters. */
  confirm: string;
  cancel: string;
  /** The line under a card's values. */
  confirmNote: string;
  /** A tap on a card already decided, expired long ago, or not this person's: nothing happens. */
  actionClosed: string;
};

const WORDS: Record<Lang, Words> = {
  en: {
    unsupported: "Sorry, I can only read text messages. Could you write your question?",
    optedOut: "You will not get any more messages from us. Send START to talk again.",
    optedIn: "Welcome back! How can I help?",
    unavailable: "Sorry, I can't answer right now. Please try again a little later.",
    sources: "Sources",
    confirm: "Confirm",
    cancel: "Cancel",
    confirmNote: "Nothing is sent until you tap Confirm.",
    actionClosed: "This request is no longer open, so nothing was sent.",
  },
  es: {
    unsupported: "Lo siento, solo puedo leer mensajes de texto. ¿Puedes escribir tu pregunta?",
    optedOut: "No recibirás más mensajes nuestros. Envía START para volver a hablar.",
    optedIn: "¡Bienvenido de nuevo! ¿En qué puedo ayudarte?",
    unavailable: "Lo siento, ahora no puedo responder. Inténtalo de nuevo un poco más tarde.",
    sources: "Fuentes",
    confirm: "Confirmar",
    cancel: "Cancelar",
    confirmNote: "No se envía nada hasta que pulses Confirmar.",
    actionClosed: "Esta solicitud ya no está abierta, así que no se ha enviado nada.",
  },
  fr: {
    unsupported: "Désolé, je ne peux lire que les messages texte. Pouvez-vous écrire votre question ?",
    optedOut: "Vous ne recevrez plus de messages de notre part. Envoyez START pour reprendre.",
    optedIn: "Bon retour ! Comment puis-je vous aider ?",
    unavailable: "Désolé, je ne peux pas répondre pour le moment. Réessayez un peu plus tard.",
    sources: "Sources",
    confirm: "Confirmer",
    cancel: "Annuler",
    confirmNote: "Rien n'est envoyé avant que vous touchiez Confirmer.",
    actionClosed: "Cette demande n'est plus ouverte : rien n'a été envoyé.",
  },
  de: {
    unsupported: "Entschuldigung, ich kann nur Textnachrichten lesen. Kannst du deine Frage schreiben?",
    optedOut: "Du bekommst keine Nachrichten mehr von uns. Sende START, um wieder zu schreiben.",
    optedIn: "Willkommen zurück! Wie kann ich helfen?",
    unavailable:
      "Entschuldigung, ich kann gerade nicht antworten. Bitte versuche es etwas später noch einmal.",
    sources: "Quellen",
    confirm: "Bestätigen",
    cancel: "Abbrechen",
    confirmNote: "Nichts wird gesendet, bevor du auf Bestätigen tippst.",
    actionClosed: "Diese Anfrage ist nicht mehr offen, daher wurde nichts gesendet.",
  },
  ja: {
    unsupported: "申し訳ありません、テキストメッセージしか読めません。ご質問を文字で送っていただけますか？",
    optedOut: "今後メッセージは送信されません。再開するには START と送ってください。",
    optedIn: "おかえりなさい！ご用件をどうぞ。",
    unavailable: "申し訳ありません、現在お答えできません。しばらくしてからもう一度お試しください。",
    sources: "出典",
    confirm: "確定する",
    cancel: "キャンセル",
    confirmNote: "「確定する」を押すまで何も送信されません。",
    actionClosed: "このリクエストはすでに受け付けを終了しているため、何も送信されていません。",
  },
};

export function channelWords(language: string | undefined): Words {
  return WORDS[langOrEnglish(language)];
}

// The keywords people use to stop and restart business messages (WhatsApp's own opt-out guidance uses STOP),
// in the widget's languages; matched on the whole message, case- and accent-blind.
const STOP = new Set([
  "stop",
  "unsubscribe",
  "stopp",
  "baja",
  "parar",
  "arret",
  "arrete",
  "停止",
  "配信停止",
]);
const START = new Set(["start", "unstop", "alta", "demarrer", "開始"]);

const fold = (text: string) =>
  text
    .normalize("NFD")
    .replace(/\p{M}/gu, "")
    .trim()
    .toLowerCase()
    .replace(/[.!。！]+$/u, "");

export const isStopWord = (text: string) => STOP.has(fold(text));
export const isStartWord = (text: string) => START.has(fold(text));
