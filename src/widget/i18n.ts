// The widget's own words, one table per language. The server picks one language (src/shared/pick-lang.ts) and
// embeds only that table in the panel page, so the panel bundle carries no dictionaries; src/widget/wording.ts
// fills them in and words error codes. Pack chip labels are localised by the chat API, not here.

import type { Lang } from "@/shared/languages";

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
  /** model_busy */
  busy: string;
  /** model_error, internal */
  trouble: string;
  /** model_timeout, idle_timeout, first_byte_timeout */
  timeout: string;
  /** interrupted */
  interrupted: string;
  /** rate_limited (HTTP 429 before a stream) */
  rateLimited: string;
  /** budget_exhausted */
  budget: string;
  /** identity_invalid: the site's sign-in token for the chat was refused */
  identityInvalid: string;
  /** identity_expired */
  identityExpired: string;
  /** round_cap, empty */
  noAnswer: string;
  /** db_unavailable */
  notSaved: string;
  /** invalid_input, payload_too_large */
  tooLong: string;
  /** The Stop button while an answer streams. */
  stop: string;
  /** Under an answer the visitor stopped (or left) before it ended. */
  stopped: string;
  /** The launcher's label while an answer waits unread. */
  unread: string;
  /** Read after a tool chip that failed. */
  toolFailed: string;
  /** The list of pages an answer cites. */
  sources: string;
  /** Under the typing dots when nothing has arrived for a few seconds. */
  stillWorking: string;
  /** A confirmation card's button that lets an action go ahead, and the line under its values. */
  confirmAction: string;
  confirmNote: string;
  /** Asked before "New conversation" clears a conversation, with its two answers. */
  confirmNew: string;
  yes: string;
  cancel: string;
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
    busy: "The assistant is very busy right now. Please try again in a minute.",
    trouble: "The assistant is having trouble right now. Please try again in a moment.",
    timeout: "The assistant took too long to answer. Please try again.",
    interrupted: "The answer was interrupted. Please try again.",
    rateLimited: "You are sending messages very quickly. Please wait a moment and try again.",
    identityInvalid:
      "We could not confirm that you are signed in, so the chat cannot continue. Please reload the page or sign in again.",
    identityExpired: "Your sign-in for this chat has expired. Please reload the page.",
    budget: "The assistant is not available right now. Please try again later.",
    noAnswer: "Sorry, I couldn't find an answer to that. Could you rephrase your question?",
    notSaved: "We could not save this answer. Please try again in a moment.",
    tooLong: "This message is too long. Please shorten it.",
    stop: "Stop",
    stopped: "Stopped.",
    unread: "Open chat, new message",
    toolFailed: "failed",
    sources: "Sources",
    stillWorking: "Still working on it…",
    confirmAction: "Confirm",
    confirmNote: "Nothing is sent until you confirm.",
    confirmNew: "Start a new conversation? This one will be cleared here.",
    yes: "Yes, start over",
    cancel: "Cancel",
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
    busy: "El asistente está muy ocupado ahora mismo. Inténtalo de nuevo en un minuto.",
    trouble: "El asistente tiene problemas en este momento. Inténtalo de nuevo en un momento.",
    timeout: "El asistente tardó demasiado en responder. Inténtalo de nuevo.",
    interrupted: "La respuesta se interrumpió. Inténtalo de nuevo.",
    rateLimited: "Estás enviando mensajes muy rápido. Espera un momento y vuelve a intentarlo.",
    identityInvalid:
      "No pudimos confirmar que has iniciado sesión, así que el chat no puede continuar. Recarga la página o vuelve a iniciar sesión.",
    identityExpired: "Tu sesión para este chat ha caducado. Recarga la página.",
    budget: "El asistente no está disponible ahora mismo. Inténtalo más tarde.",
    noAnswer: "Lo siento, no encontré una respuesta. ¿Puedes formular la pregunta de otra manera?",
    notSaved: "No pudimos guardar esta respuesta. Inténtalo de nuevo en un momento.",
    tooLong: "Este mensaje es demasiado largo. Acórtalo, por favor.",
    stop: "Detener",
    stopped: "Detenido.",
    unread: "Abrir el chat, mensaje nuevo",
    toolFailed: "falló",
    sources: "Fuentes",
    stillWorking: "Sigo trabajando en ello…",
    confirmAction: "Confirmar",
    confirmNote: "No se envía nada hasta que confirmes.",
    confirmNew: "¿Empezar una conversación nueva? Esta se borrará aquí.",
    yes: "Sí, empezar de nuevo",
    cancel: "Cancelar",
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
    busy: "L'assistant est très sollicité en ce moment. Réessayez dans une minute.",
    trouble: "L'assistant rencontre un problème. Réessayez dans un instant.",
    timeout: "L'assistant a mis trop de temps à répondre. Veuillez réessayer.",
    interrupted: "La réponse a été interrompue. Veuillez réessayer.",
    rateLimited: "Vous envoyez des messages très vite. Patientez un instant puis réessayez.",
    identityInvalid:
      "Nous n'avons pas pu confirmer que vous êtes connecté : le chat ne peut pas continuer. Rechargez la page ou reconnectez-vous.",
    identityExpired: "Votre connexion pour ce chat a expiré. Rechargez la page.",
    budget: "L'assistant n'est pas disponible pour le moment. Réessayez plus tard.",
    noAnswer: "Désolé, je n'ai pas trouvé de réponse. Pouvez-vous reformuler votre question ?",
    notSaved: "Impossible d'enregistrer cette réponse. Réessayez dans un instant.",
    tooLong: "Ce message est trop long. Raccourcissez-le, s'il vous plaît.",
    stop: "Arrêter",
    stopped: "Arrêté.",
    unread: "Ouvrir le chat, nouveau message",
    toolFailed: "échec",
    sources: "Sources",
    stillWorking: "Toujours en cours…",
    confirmAction: "Confirmer",
    confirmNote: "Rien n'est envoyé avant votre confirmation.",
    confirmNew: "Commencer une nouvelle conversation ? Celle-ci sera effacée ici.",
    yes: "Oui, recommencer",
    cancel: "Annuler",
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
    busy: "Der Assistent ist gerade sehr ausgelastet. Bitte versuchen Sie es in einer Minute erneut.",
    trouble: "Der Assistent hat gerade Probleme. Bitte versuchen Sie es gleich noch einmal.",
    timeout: "Der Assistent hat zu lange gebraucht. Bitte versuchen Sie es erneut.",
    interrupted: "Die Antwort wurde unterbrochen. Bitte versuchen Sie es erneut.",
    rateLimited: "Sie senden sehr schnell Nachrichten. Bitte warten Sie einen Moment.",
    identityInvalid:
      "Wir konnten Ihre Anmeldung nicht bestätigen, daher kann der Chat nicht fortfahren. Bitte laden Sie die Seite neu oder melden Sie sich erneut an.",
    identityExpired: "Ihre Anmeldung für diesen Chat ist abgelaufen. Bitte laden Sie die Seite neu.",
    budget: "Der Assistent ist gerade nicht verfügbar. Bitte versuchen Sie es später erneut.",
    noAnswer: "Dazu habe ich leider keine Antwort gefunden. Können Sie die Frage anders stellen?",
    notSaved: "Diese Antwort konnte nicht gespeichert werden. Bitte versuchen Sie es gleich erneut.",
    tooLong: "Diese Nachricht ist zu lang. Bitte kürzen Sie sie.",
    stop: "Stopp",
    stopped: "Angehalten.",
    unread: "Chat öffnen, neue Nachricht",
    toolFailed: "fehlgeschlagen",
    sources: "Quellen",
    stillWorking: "Ich arbeite noch daran…",
    confirmAction: "Bestätigen",
    confirmNote: "Nichts wird gesendet, bevor Sie bestätigen.",
    confirmNew: "Neues Gespräch beginnen? Dieses wird hier gelöscht.",
    yes: "Ja, neu beginnen",
    cancel: "Abbrechen",
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
    busy: "ただいま大変混み合っています。1分ほどしてからもう一度お試しください。",
    trouble: "ただいま問題が発生しています。少し時間をおいてもう一度お試しください。",
    timeout: "回答に時間がかかりすぎました。もう一度お試しください。",
    interrupted: "回答が途中で中断されました。もう一度お試しください。",
    rateLimited: "送信が速すぎます。少し待ってからもう一度お試しください。",
    identityInvalid:
      "ログイン状態を確認できなかったため、チャットを続けられません。ページを再読み込みするか、もう一度ログインしてください。",
    identityExpired: "このチャットのログインの有効期限が切れました。ページを再読み込みしてください。",
    budget: "ただいまご利用いただけません。しばらくしてからお試しください。",
    noAnswer: "申し訳ありません、答えが見つかりませんでした。質問を言い換えていただけますか？",
    notSaved: "この回答を保存できませんでした。少し時間をおいてもう一度お試しください。",
    tooLong: "メッセージが長すぎます。短くしてください。",
    stop: "停止",
    stopped: "停止しました。",
    unread: "チャットを開く（新着メッセージ）",
    toolFailed: "失敗",
    sources: "出典",
    stillWorking: "まだ処理しています…",
    confirmAction: "確定する",
    confirmNote: "確定するまで何も送信されません。",
    confirmNew: "新しい会話を始めますか？この会話はここから消えます。",
    yes: "はい、最初から",
    cancel: "キャンセル",
  },
};
