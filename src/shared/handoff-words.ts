// The words of the panel's hand-off form, rating buttons and menu, one table per language. Like ./i18n.ts, the
// server embeds only the visitor's language in the panel page, so the bundle carries no dictionaries; the
// contact endpoint words its refusals from the same table.

import type { ContactProblem } from "@/shared/contact";
import type { Lang } from "@/shared/languages";

export type HandoffStrings = {
  menu: string;
  talk: string;
  formTitle: string;
  name: string;
  email: string;
  phone: string;
  reachHint: string;
  message: string;
  send: string;
  cancel: string;
  /** {name} is the bot's (business's) name. */
  sent: string;
  failed: string;
  up: string;
  down: string;
  comment: string;
  commentSend: string;
  thanks: string;
  problems: Record<ContactProblem, string>;
};

export const HANDOFF_STRINGS: Record<Lang, HandoffStrings> = {
  en: {
    menu: "More options",
    talk: "Talk to a person",
    formTitle: "Leave your details and a person will get back to you.",
    name: "Name (optional)",
    email: "E-mail",
    phone: "Phone",
    reachHint: "An e-mail address, a phone number or both.",
    message: "How can we help?",
    send: "Send request",
    cancel: "Cancel",
    sent: "Thank you! Someone from {name} will get back to you soon.",
    failed: "We could not send your request. Please try again.",
    up: "Helpful",
    down: "Not helpful",
    comment: "What was wrong? (optional)",
    commentSend: "Send",
    thanks: "Thanks for your feedback.",
    problems: {
      email_invalid: "This e-mail address does not look right.",
      phone_invalid: "This phone number does not look right.",
      reach_needed: "Please give an e-mail address or a phone number.",
      message_needed: "Please write a short message.",
      too_long: "This is too long.",
      consent_needed: "Please tick the box to send your request.",
    },
  },
  es: {
    menu: "Más opciones",
    talk: "Hablar con una persona",
    formTitle: "Déjanos tus datos y una persona se pondrá en contacto contigo.",
    name: "Nombre (opcional)",
    email: "Correo electrónico",
    phone: "Teléfono",
    reachHint: "Un correo electrónico, un teléfono o ambos.",
    message: "¿En qué podemos ayudarte?",
    send: "Enviar solicitud",
    cancel: "Cancelar",
    sent: "¡Gracias! Alguien de {name} se pondrá en contacto contigo pronto.",
    failed: "No pudimos enviar tu solicitud. Inténtalo de nuevo.",
    up: "Útil",
    down: "No fue útil",
    comment: "¿Qué falló? (opcional)",
    commentSend: "Enviar",
    thanks: "Gracias por tu opinión.",
    problems: {
      email_invalid: "Este correo electrónico no parece correcto.",
      phone_invalid: "Este número de teléfono no parece correcto.",
      reach_needed: "Indica un correo electrónico o un teléfono.",
      message_needed: "Escribe un mensaje breve.",
      too_long: "Es demasiado largo.",
      consent_needed: "Marca la casilla para enviar tu solicitud.",
    },
  },
  fr: {
    menu: "Plus d'options",
    talk: "Parler à une personne",
    formTitle: "Laissez vos coordonnées et une personne vous recontactera.",
    name: "Nom (facultatif)",
    email: "E-mail",
    phone: "Téléphone",
    reachHint: "Une adresse e-mail, un numéro de téléphone ou les deux.",
    message: "Comment pouvons-nous vous aider ?",
    send: "Envoyer la demande",
    cancel: "Annuler",
    sent: "Merci ! Quelqu'un de {name} vous recontactera bientôt.",
    failed: "Votre demande n'a pas pu être envoyée. Veuillez réessayer.",
    up: "Utile",
    down: "Pas utile",
    comment: "Qu'est-ce qui n'allait pas ? (facultatif)",
    commentSend: "Envoyer",
    thanks: "Merci pour votre avis.",
    problems: {
      email_invalid: "Cette adresse e-mail ne semble pas correcte.",
      phone_invalid: "Ce numéro de téléphone ne semble pas correct.",
      reach_needed: "Indiquez une adresse e-mail ou un numéro de téléphone.",
      message_needed: "Écrivez un court message.",
      too_long: "C'est trop long.",
      consent_needed: "Cochez la case pour envoyer votre demande.",
    },
  },
  de: {
    menu: "Weitere Optionen",
    talk: "Mit einem Menschen sprechen",
    formTitle: "Hinterlassen Sie Ihre Kontaktdaten, wir melden uns bei Ihnen.",
    name: "Name (optional)",
    email: "E-Mail",
    phone: "Telefon",
    reachHint: "Eine E-Mail-Adresse, eine Telefonnummer oder beides.",
    message: "Wie können wir helfen?",
    send: "Anfrage senden",
    cancel: "Abbrechen",
    sent: "Danke! Jemand von {name} meldet sich bald bei Ihnen.",
    failed: "Ihre Anfrage konnte nicht gesendet werden. Bitte versuchen Sie es erneut.",
    up: "Hilfreich",
    down: "Nicht hilfreich",
    comment: "Was war falsch? (optional)",
    commentSend: "Senden",
    thanks: "Danke für Ihre Rückmeldung.",
    problems: {
      email_invalid: "Diese E-Mail-Adresse scheint nicht zu stimmen.",
      phone_invalid: "Diese Telefonnummer scheint nicht zu stimmen.",
      reach_needed: "Bitte geben Sie eine E-Mail-Adresse oder Telefonnummer an.",
      message_needed: "Bitte schreiben Sie eine kurze Nachricht.",
      too_long: "Das ist zu lang.",
      consent_needed: "Bitte setzen Sie das Häkchen, um die Anfrage zu senden.",
    },
  },
  ja: {
    menu: "その他のオプション",
    talk: "担当者と話す",
    formTitle: "ご連絡先を残していただければ、担当者からご連絡します。",
    name: "お名前（任意）",
    email: "メールアドレス",
    phone: "電話番号",
    reachHint: "メールアドレスか電話番号（または両方）をご入力ください。",
    message: "ご用件",
    send: "依頼を送信",
    cancel: "キャンセル",
    sent: "ありがとうございます。{name}の担当者からまもなくご連絡します。",
    failed: "送信できませんでした。もう一度お試しください。",
    up: "役に立った",
    down: "役に立たなかった",
    comment: "どこが問題でしたか？（任意）",
    commentSend: "送信",
    thanks: "ご意見ありがとうございます。",
    problems: {
      email_invalid: "メールアドレスが正しくないようです。",
      phone_invalid: "電話番号が正しくないようです。",
      reach_needed: "メールアドレスか電話番号をご入力ください。",
      message_needed: "ご用件を短くご記入ください。",
      too_long: "長すぎます。",
      consent_needed: "送信するにはチェックを入れてください。",
    },
  },
};
