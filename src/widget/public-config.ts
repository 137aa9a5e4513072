// What a visitor's browser may know about a tenant: its bot's face and words. Built on the server from the
// tenant row; nothing here is secret (no instructions, model, domains, limits or ids besides the public key).

import type { BotSettings } from "@/lib/db/schema";
import { consentIn } from "@/shared/consent";
import { fill } from "@/shared/fill";
import { HANDOFF_STRINGS, type HandoffStrings } from "@/shared/handoff-words";
import type { Lang } from "@/shared/languages";
import { LIVE_STRINGS, type LiveStrings } from "@/shared/live-words";
import { pickLang } from "@/shared/pick-lang";
import { type Theme, themeFor } from "./contrast";
import { STRINGS, type Strings } from "./i18n";

export type PanelConfig = {
  key: string;
  name: string;
  avatarUrl: string | null;
  greeting: string;
  starters: string[];
  lang: Lang;
  theme: Theme;
  /** The embedding page's origin, checked against the tenant's list; null when opened on its own. */
  parentOrigin: string | null;
  /** The embedding page's origin and path, sent with each message for the admin's conversation log. */
  pageUrl: string;
  t: Strings;
  /** The contact form's consent text (the request_human pack's setting) and the hand-off words. */
  consent: string;
  h: HandoffStrings;
  /** A live conversation with a person (issue #28). */
  l: LiveStrings;
};

/** What the loader needs to draw the launcher before any iframe exists. */
export type LauncherConfig = {
  color: string;
  onColor: string;
  position: "left" | "right";
  label: string;
  closeLabel: string;
  /** The launcher's label while an answer waits unread. */
  unread: string;
  title: string;
};

type TenantLike = { name: string; widgetKey: string; bot: BotSettings };

const clip = (s: unknown, max: number) => (typeof s === "string" ? s.trim().slice(0, max) : "");

export function botName(t: TenantLike): string {
  return clip(t.bot.displayName, 80) || clip(t.name, 80) || "Chat";
}

/** Only an https avatar is shown; its origin is then the one remote host the panel's CSP lets in. */
export function avatarOf(bot: BotSettings): string | null {
  const raw = clip(bot.avatarUrl, 2000);
  if (!raw) return null;
  try {
    const u = new URL(raw);
    return u.protocol === "https:" && !u.username && !u.password ? u.href : null;
  } catch {
    return null;
  }
}

export function widgetLang(t: TenantLike, requested: string | null, acceptLanguage: string[]): Lang {
  return pickLang(requested, t.bot.language, acceptLanguage);
}

/**
 * The starter prompts in the visitor's language: the business's own for that language; else none when it wrote
 * a greeting for that language (its main starters would stand in another language beside it); else the main
 * ones.
 */
function startersFor(bot: BotSettings, lang: Lang): string[] {
  const own = bot.startersByLang?.[lang];
  if (Array.isArray(own) && own.length > 0) return own;
  if (lang !== (bot.language ?? "en") && clip(bot.greetings?.[lang], 1000)) return [];
  return Array.isArray(bot.starters) ? bot.starters : [];
}

export function panelConfig(
  t: TenantLike,
  opts: { lang: Lang; parentOrigin: string | null; pageUrl: string; consent?: string },
): PanelConfig {
  const starters = startersFor(t.bot, opts.lang);
  return {
    key: t.widgetKey,
    name: botName(t),
    avatarUrl: avatarOf(t.bot),
    // The admin's greeting in the conversation's language, else the one greeting for every language.
    greeting: clip(t.bot.greetings?.[opts.lang], 1000) || clip(t.bot.greeting, 1000),
    starters: starters
      .map((s) => clip(s, 200))
      .filter(Boolean)
      .slice(0, 6),
    lang: opts.lang,
    theme: themeFor(t.bot.color),
    parentOrigin: opts.parentOrigin,
    pageUrl: opts.pageUrl,
    t: STRINGS[opts.lang],
    consent: opts.consent ? consentIn(t.bot.consents, opts.lang, opts.consent) : "",
    h: HANDOFF_STRINGS[opts.lang],
    l: LIVE_STRINGS[opts.lang],
  };
}

export function launcherConfig(t: TenantLike, lang: Lang): LauncherConfig {
  const theme = themeFor(t.bot.color);
  const s = STRINGS[lang];
  return {
    color: theme.color,
    onColor: theme.onColor,
    position: t.bot.position === "left" ? "left" : "right",
    label: s.open,
    closeLabel: s.close,
    unread: s.unread,
    title: fill(s.title, { name: botName(t) }),
  };
}
