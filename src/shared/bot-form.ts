// Limits and choices of the Bot page, shared by the schema (server) and the form (browser).

import { LANGS } from "./languages";

export const BOT_LIMITS = {
  displayName: 60,
  greeting: 300,
  instructions: 4000,
  starters: 4,
  starter: 80,
  avatarUrl: 500,
  consent: 500,
} as const;

/** One optional greeting per widget language, e.g. greeting_es; a language left blank uses the greeting. */
export const GREETING_NAMES = LANGS.map((lang) => ({ lang, name: `greeting_${lang}` }));

export const STARTER_NAMES = Array.from({ length: BOT_LIMITS.starters }, (_, i) => `starter${i + 1}`);

/** Starter prompts per widget language (one per line), e.g. starters_es; see panelConfig for the fallback. */
export const LANG_STARTER_NAMES = LANGS.map((lang) => ({ lang, name: `starters_${lang}` }));

/** The contact form's consent text per widget language, e.g. consent_es. */
export const CONSENT_NAMES = LANGS.map((lang) => ({ lang, name: `consent_${lang}` }));
