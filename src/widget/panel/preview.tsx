/** @jsxImportSource preact */
// The Bot page's live preview (src/app/(admin)/admin/[tenant]/bot/BotPreview.tsx) frames this panel with
// ?preview=1 and posts the config its form would produce, as the owner types. The panel then draws exactly
// what a visitor would see, from the same components, and sends nothing: it has no session of its own, and it
// is inert, so no message, starter or contact form can leave it. Only the platform's own pages may drive it.
import { useEffect, useState } from "preact/hooks";
import type { PanelConfig } from "../public-config";
import { App } from "./App";
import type { Bridge } from "./bridge";
import { createSession } from "./session";
import { memoryStore } from "./storage";

export function applyTheme(theme: PanelConfig["theme"]) {
  const root = document.documentElement.style;
  root.setProperty("--c", theme.color);
  root.setProperty("--on", theme.onColor);
  root.setProperty("--link", theme.link);
}

const isText = (v: unknown): v is string => typeof v === "string";

/** The parts of a posted config the preview takes; anything else keeps the page's own value. */
function previewed(base: PanelConfig, raw: unknown): PanelConfig | null {
  const c = raw as Partial<PanelConfig> | null;
  if (!c || !isText(c.name) || !isText(c.greeting) || !Array.isArray(c.starters)) return null;
  const theme = c.theme;
  if (!theme || !isText(theme.color) || !isText(theme.onColor) || !isText(theme.link)) return null;
  if (!c.t || typeof c.t !== "object" || !isText(c.lang)) return null;
  return {
    ...base,
    name: c.name,
    greeting: c.greeting,
    starters: c.starters.filter(isText),
    theme,
    lang: c.lang,
    t: { ...base.t, ...c.t },
    avatarUrl: isText(c.avatarUrl) ? c.avatarUrl : null,
  };
}

export function Preview({ cfg, bridge }: { cfg: PanelConfig; bridge: Bridge }) {
  const [shown, setShown] = useState(cfg);
  const [session] = useState(() => createSession(cfg.key, memoryStore()));
  useEffect(() => {
    const parent = window.parent;
    const onMessage = (e: MessageEvent) => {
      if (e.source !== parent || e.origin !== location.origin || cfg.parentOrigin !== location.origin) return;
      const d = e.data as { michi?: unknown; type?: unknown; cfg?: unknown } | null;
      if (d?.michi !== cfg.key || d.type !== "preview") return;
      const next = previewed(cfg, d.cfg);
      if (next) setShown(next);
    };
    window.addEventListener("message", onMessage);
    return () => window.removeEventListener("message", onMessage);
  }, [cfg]);
  useEffect(() => {
    applyTheme(shown.theme);
    document.documentElement.lang = shown.lang;
  }, [shown]);
  return (
    <div class="preview" inert>
      <App cfg={shown} session={session} bridge={bridge} />
    </div>
  );
}
