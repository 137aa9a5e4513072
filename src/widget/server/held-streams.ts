// How many live streams are held open at once in this process, per visitor, per client IP and per business
// (HELD_STREAM_LIMITS), and the refusal in the visitor's language when one more would pass a bound.
import "server-only";
import { AppError } from "@/lib/errors";
import { processSlot } from "@/lib/process-slot";
import { HELD_STREAM_LIMITS } from "@/lib/security/limits";
import type { Lang } from "@/shared/languages";

type Scope = keyof typeof HELD_STREAM_LIMITS;

// Per process, like the streams themselves: a shutdown or a crash takes both with it.
const counts = processSlot<Map<string, number>>("HeldStreamCounts");

const TOO_MANY: Record<"windows" | "network" | "busy", Record<Lang, string>> = {
  windows: {
    en: "Too many open chat windows. Close one and try again.",
    es: "Hay demasiadas ventanas de chat abiertas. Cierra una y vuelve a intentarlo.",
    fr: "Trop de fenêtres de discussion sont ouvertes. Fermez-en une et réessayez.",
    de: "Zu viele Chatfenster sind geöffnet. Schließen Sie eines und versuchen Sie es erneut.",
    ja: "開いているチャット画面が多すぎます。どれかを閉じてから、もう一度お試しください。",
  },
  network: {
    en: "Too many chat windows are open from your network. Close one and try again.",
    es: "Hay demasiadas ventanas de chat abiertas desde tu red. Cierra una y vuelve a intentarlo.",
    fr: "Trop de fenêtres de discussion sont ouvertes depuis votre réseau. Fermez-en une et réessayez.",
    de: "Aus Ihrem Netzwerk sind zu viele Chatfenster geöffnet. Schließen Sie eines und versuchen Sie es erneut.",
    ja: "お使いのネットワークから開いているチャット画面が多すぎます。どれかを閉じてから、もう一度お試しください。",
  },
  busy: {
    en: "Lots of people are chatting right now. Please try again in a moment.",
    es: "Ahora mismo hay mucha gente chateando. Vuelve a intentarlo en un momento.",
    fr: "Beaucoup de personnes discutent en ce moment. Réessayez dans un instant.",
    de: "Gerade chatten sehr viele Menschen. Bitte versuchen Sie es gleich noch einmal.",
    ja: "ただいま大変混み合っています。しばらくしてから、もう一度お試しください。",
  },
};
const WORDS: Record<Scope, keyof typeof TOO_MANY> = {
  perVisitor: "windows",
  perIp: "network",
  perBusiness: "busy",
};

/**
 * Takes one slot in each scope for a stream about to be held, or throws a 429 worded in `lang` (nothing
 * taken then). The returned function gives the slots back; it may be called more than once.
 */
export function holdStreamSlots(
  keys: { tenantId: string; visitorId: string; ip: string },
  lang: Lang,
): () => void {
  const map = counts.use(() => new Map());
  const slots: [Scope, string][] = [
    ["perVisitor", `v:${keys.tenantId}:${keys.visitorId}`],
    ["perIp", `i:${keys.ip}`],
    ["perBusiness", `b:${keys.tenantId}`],
  ];
  for (const [scope, key] of slots)
    if ((map.get(key) ?? 0) >= HELD_STREAM_LIMITS[scope])
      throw new AppError("rate_limited", TOO_MANY[WORDS[scope]][lang], { retryAfterSec: 30 });
  for (const [, key] of slots) map.set(key, (map.get(key) ?? 0) + 1);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    for (const [, key] of slots) {
      const n = (map.get(key) ?? 1) - 1;
      if (n > 0) map.set(key, n);
      else map.delete(key);
    }
  };
}

/** Streams held now under a key (tests and the bench read it): "i:<ip>", "b:<tenant id>". */
export function heldStreamCount(key: string): number {
  return counts.get()?.get(key) ?? 0;
}
