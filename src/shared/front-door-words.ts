// The words of the public pages a stranger meets first (the landing page and "not found"), in the five
// languages the widget speaks, picked from the browser's Accept-Language: a visitor who followed a dead link
// from a business's site reads them in their own language. The admin behind sign-in is in English.

import type { Lang } from "@/shared/languages";
import { normalizeLang, parseAcceptLanguage } from "@/shared/pick-lang";

export type Feature = { title: string; text: string };

export type FrontDoorWords = {
  notFoundTitle: string;
  notFoundText: string;
  home: string;
  tagline: string;
  intro: string;
  features: Feature[];
  signIn: string;
  signUp: string;
  demo: string;
};

export const FRONT_DOOR_WORDS: Record<Lang, FrontDoorWords> = {
  en: {
    notFoundTitle: "Page not found",
    notFoundText: "There is nothing at this address. The link may be mistyped, or the page may have moved.",
    home: "Go to the home page",
    tagline: "An assistant for your website that answers from your own facts",
    intro:
      "Visitors ask in a chat on your site. The assistant answers from your website, your documents and the tools you switch on, and shows the pages it used.",
    features: [
      {
        title: "Answers with sources",
        text: "From your own site, files, curated answers and live tools such as opening hours or stock, every answer citing its pages.",
      },
      {
        title: "A person can take over",
        text: "Someone from your team joins the very conversation, live, and the assistant steps back.",
      },
      {
        title: "WhatsApp and Telegram",
        text: "The same assistant, the same knowledge and the same hand-off on both.",
      },
      {
        title: "Acts only on a yes",
        text: "A booking or an order is sent for the visitor only after they confirm it in the chat.",
      },
    ],
    signIn: "Sign in",
    signUp: "Create an account",
    demo: "Try the demo",
  },
  es: {
    notFoundTitle: "Página no encontrada",
    notFoundText:
      "No hay nada en esta dirección. Puede que el enlace esté mal escrito o que la página se haya movido.",
    home: "Ir a la página de inicio",
    tagline: "Un asistente para tu web que responde con tus propios datos",
    intro:
      "Los visitantes preguntan en un chat de tu web. El asistente responde con tu sitio, tus documentos y las herramientas que actives, y muestra las páginas que usó.",
    features: [
      {
        title: "Respuestas con fuentes",
        text: "De tu propio sitio, tus archivos, tus respuestas y herramientas en vivo como el horario o el stock, citando siempre sus páginas.",
      },
      {
        title: "Una persona puede intervenir",
        text: "Alguien de tu equipo entra en la misma conversación, en directo, y el asistente se aparta.",
      },
      {
        title: "WhatsApp y Telegram",
        text: "El mismo asistente, los mismos conocimientos y el mismo traspaso en ambos.",
      },
      {
        title: "Solo actúa con un sí",
        text: "Una reserva o un pedido se envía por el visitante solo después de que lo confirme en el chat.",
      },
    ],
    signIn: "Iniciar sesión",
    signUp: "Crear una cuenta",
    demo: "Probar la demo",
  },
  fr: {
    notFoundTitle: "Page introuvable",
    notFoundText:
      "Il n'y a rien à cette adresse. Le lien est peut-être mal saisi, ou la page a peut-être été déplacée.",
    home: "Aller à la page d'accueil",
    tagline: "Un assistant pour votre site qui répond à partir de vos propres informations",
    intro:
      "Les visiteurs posent leurs questions dans un chat sur votre site. L'assistant répond à partir de votre site, de vos documents et des outils que vous activez, et montre les pages utilisées.",
    features: [
      {
        title: "Des réponses sourcées",
        text: "Votre site, vos fichiers, vos réponses rédigées et des outils en direct comme les horaires ou le stock, chaque réponse citant ses pages.",
      },
      {
        title: "Une personne peut prendre le relais",
        text: "Quelqu'un de votre équipe rejoint la conversation elle-même, en direct, et l'assistant se retire.",
      },
      {
        title: "WhatsApp et Telegram",
        text: "Le même assistant, les mêmes connaissances et le même relais sur les deux.",
      },
      {
        title: "Il n'agit que sur un oui",
        text: "Une réservation ou une commande n'est envoyée pour le visiteur qu'après sa confirmation dans le chat.",
      },
    ],
    signIn: "Se connecter",
    signUp: "Créer un compte",
    demo: "Essayer la démo",
  },
  de: {
    notFoundTitle: "Seite nicht gefunden",
    notFoundText:
      "Unter dieser Adresse gibt es nichts. Vielleicht ist der Link falsch geschrieben oder die Seite wurde verschoben.",
    home: "Zur Startseite",
    tagline: "Ein Assistent für Ihre Website, der mit Ihren eigenen Fakten antwortet",
    intro:
      "Besucher fragen in einem Chat auf Ihrer Website. Der Assistent antwortet aus Ihrer Website, Ihren Dokumenten und den Werkzeugen, die Sie einschalten, und zeigt die verwendeten Seiten.",
    features: [
      {
        title: "Antworten mit Quellen",
        text: "Aus Ihrer Website, Ihren Dateien, Ihren eigenen Antworten und Live-Werkzeugen wie Öffnungszeiten oder Lagerbestand, jede Antwort mit ihren Seiten.",
      },
      {
        title: "Ein Mensch kann übernehmen",
        text: "Jemand aus Ihrem Team tritt live in dasselbe Gespräch ein, und der Assistent tritt zurück.",
      },
      {
        title: "WhatsApp und Telegram",
        text: "Derselbe Assistent, dasselbe Wissen und dieselbe Übergabe auf beiden.",
      },
      {
        title: "Handelt nur nach einem Ja",
        text: "Eine Buchung oder Bestellung wird für den Besucher erst gesendet, wenn er sie im Chat bestätigt.",
      },
    ],
    signIn: "Anmelden",
    signUp: "Konto erstellen",
    demo: "Demo ausprobieren",
  },
  ja: {
    notFoundTitle: "ページが見つかりません",
    notFoundText: "このアドレスには何もありません。リンクの入力ミスか、ページが移動した可能性があります。",
    home: "ホームページへ",
    tagline: "あなたの情報をもとに答える、ウェブサイトのためのアシスタント",
    intro:
      "訪問者はサイトのチャットで質問します。アシスタントはあなたのサイト、文書、オンにしたツールをもとに答え、使ったページを示します。",
    features: [
      {
        title: "出典つきの回答",
        text: "自社サイト、ファイル、登録した回答、営業時間や在庫などのライブツールから答え、どの回答も参照ページを示します。",
      },
      {
        title: "スタッフが引き継げます",
        text: "チームの誰かが同じ会話にリアルタイムで参加し、アシスタントは一歩下がります。",
      },
      {
        title: "WhatsApp と Telegram",
        text: "どちらでも同じアシスタント、同じ知識、同じ引き継ぎ。",
      },
      {
        title: "「はい」のあとにだけ実行",
        text: "予約や注文は、訪問者がチャットで確認したあとにだけ送信されます。",
      },
    ],
    signIn: "サインイン",
    signUp: "アカウントを作成",
    demo: "デモを試す",
  },
};

/** The first language of an Accept-Language header that these pages speak, else English. */
export function frontDoorLang(acceptLanguage: string | null | undefined): Lang {
  return (
    parseAcceptLanguage(acceptLanguage)
      .map(normalizeLang)
      .find((l): l is Lang => l !== null) ?? "en"
  );
}
