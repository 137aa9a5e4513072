// The widget's own words. The server picks one language and embeds only that table in the panel page, so the
// panel bundle carries no dictionaries. Pack chip labels are localised by the chat API, not here.

import { isLang, type Lang } from "@/shared/languages";

export type Strings = {
  open: string;
  close: string;
  /** The iframe's title; {name} is the bot's name. */
  title: string;
  placeholder: string;
  messageLabel: string;
  send: string;
  newConversation: string;
  conversation: string;
  suggestions: string;
  you: string;
  typing: string;
  retry: string;
  error: string;
  offline: string;
  unavailable: string;
  /** Stream error "length": the model stopped at the output limit. */
  cutLength: string;
  /** Stream error "content_filter": the provider's filter stopped the answer. */
  filtered: string;
};

export const STRINGS: Record<Lang, Strings> = {
  en: {
    open: "Open chat",
    close: "Close chat",
    title: "Chat with {name}",
    placeholder: "Type your message…",
    messageLabel: "Your message",
    send: "Send",
    newConversation: "New conversation",
    conversation: "Conversation",
    suggestions: "Suggested questions",
    you: "You",
    typing: "{name} is typing…",
    retry: "Retry",
    error: "Something went wrong. Please try again.",
    offline: "We could not reach the chat. Check your connection and try again.",
    unavailable: "This chat is not available right now.",
    cutLength: "The answer was cut short because it got too long. Please ask a narrower question.",
    filtered: "The answer was stopped by a content filter. Please rephrase your question.",
  },
  es: {
    open: "Abrir el chat",
    close: "Cerrar el chat",
    title: "Chatea con {name}",
    placeholder: "Escribe tu mensaje…",
    messageLabel: "Tu mensaje",
    send: "Enviar",
    newConversation: "Nueva conversación",
    conversation: "Conversación",
    suggestions: "Preguntas sugeridas",
    you: "Tú",
    typing: "{name} está escribiendo…",
    retry: "Reintentar",
    error: "Algo salió mal. Inténtalo de nuevo.",
    offline: "No pudimos conectar con el chat. Revisa tu conexión e inténtalo de nuevo.",
    unavailable: "Este chat no está disponible en este momento.",
    cutLength: "La respuesta se cortó porque era demasiado larga. Haz una pregunta más concreta.",
    filtered: "Un filtro de contenido detuvo la respuesta. Reformula tu pregunta.",
  },
  fr: {
    open: "Ouvrir le chat",
    close: "Fermer le chat",
    title: "Discuter avec {name}",
    placeholder: "Écrivez votre message…",
    messageLabel: "Votre message",
    send: "Envoyer",
    newConversation: "Nouvelle conversation",
    conversation: "Conversation",
    suggestions: "Questions suggérées",
    you: "Vous",
    typing: "{name} écrit…",
    retry: "Réessayer",
    error: "Un problème est survenu. Veuillez réessayer.",
    offline: "Impossible de joindre le chat. Vérifiez votre connexion et réessayez.",
    unavailable: "Ce chat n'est pas disponible pour le moment.",
    cutLength: "La réponse a été coupée car elle était trop longue. Posez une question plus précise.",
    filtered: "Un filtre de contenu a arrêté la réponse. Reformulez votre question.",
  },
  de: {
    open: "Chat öffnen",
    close: "Chat schließen",
    title: "Chat mit {name}",
    placeholder: "Nachricht eingeben…",
    messageLabel: "Ihre Nachricht",
    send: "Senden",
    newConversation: "Neues Gespräch",
    conversation: "Gespräch",
    suggestions: "Vorgeschlagene Fragen",
    you: "Sie",
    typing: "{name} schreibt…",
    retry: "Erneut versuchen",
    error: "Etwas ist schiefgelaufen. Bitte versuchen Sie es erneut.",
    offline: "Der Chat ist nicht erreichbar. Prüfen Sie Ihre Verbindung und versuchen Sie es erneut.",
    unavailable: "Dieser Chat ist gerade nicht verfügbar.",
    cutLength: "Die Antwort wurde gekürzt, weil sie zu lang wurde. Bitte stellen Sie eine genauere Frage.",
    filtered: "Ein Inhaltsfilter hat die Antwort gestoppt. Bitte formulieren Sie Ihre Frage anders.",
  },
  ja: {
    open: "チャットを開く",
    close: "チャットを閉じる",
    title: "{name}とチャット",
    placeholder: "メッセージを入力…",
    messageLabel: "メッセージ",
    send: "送信",
    newConversation: "新しい会話",
    conversation: "会話",
    suggestions: "よくある質問",
    you: "あなた",
    typing: "{name}が入力中…",
    retry: "再試行",
    error: "問題が発生しました。もう一度お試しください。",
    offline: "チャットに接続できませんでした。接続を確認して、もう一度お試しください。",
    unavailable: "このチャットは現在ご利用いただけません。",
    cutLength: "回答が長すぎたため途中で切れました。質問を絞ってもう一度お試しください。",
    filtered: "コンテンツフィルターにより回答が停止されました。質問を言い換えてください。",
  },
};

/** "ja-JP", "JA", "ja_jp" → "ja"; anything we do not speak → null. */
export function normalizeLang(tag: string | null | undefined): Lang | null {
  if (!tag) return null;
  const primary = tag.trim().toLowerCase().split(/[-_]/)[0] ?? "";
  return isLang(primary) ? primary : null;
}

/** The languages of an Accept-Language header, best first (q=0 entries dropped). */
export function parseAcceptLanguage(header: string | null | undefined): string[] {
  if (!header) return [];
  return header
    .split(",")
    .slice(0, 20)
    .map((part, i) => {
      const [tag = "", ...params] = part.trim().split(";");
      const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
      const weight = q ? Number(q.slice(2)) : 1;
      return { tag: tag.trim(), weight: Number.isFinite(weight) ? weight : 0, i };
    })
    .filter((x) => x.tag && x.tag !== "*" && x.weight > 0)
    .sort((a, b) => b.weight - a.weight || a.i - b.i)
    .map((x) => x.tag);
}

/**
 * The widget's language: the embed's data-michi-lang, else the tenant's bot language, else the first browser
 * language we speak, else English. An unsupported value at one level falls through to the next.
 */
export function pickLang(
  requested: string | null | undefined,
  tenantLang: string | null | undefined,
  browser: readonly string[],
): Lang {
  return (
    normalizeLang(requested) ??
    normalizeLang(tenantLang) ??
    browser.map(normalizeLang).find((l): l is Lang => l !== null) ??
    "en"
  );
}

export function fill(template: string, vars: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (m, k: string) => vars[k] ?? m);
}

/** The widget's own words for a stream error code it knows, so cut and filtered answers read in its language. */
export function codeMessage(t: Strings, code: string): string | undefined {
  if (code === "length") return t.cutLength;
  if (code === "content_filter") return t.filtered;
  return undefined;
}
