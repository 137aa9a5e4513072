"use client";

import { type RefObject, useCallback, useEffect, useRef, useState } from "react";
import { GREETING_NAMES, LANG_STARTER_NAMES, STARTER_NAMES } from "@/shared/bot-form";
import { isLang, LANGUAGE_LABELS, type Lang } from "@/shared/languages";
import { panelConfig } from "@/widget/public-config";

// The live preview beside the Bot form: the widget's own panel (/w/KEY?preview=1), framed here and fed by
// postMessage with the config the form would produce, so it shows exactly what a visitor would see (the
// panel's components and styles, and the same choice of greeting and starters per language). Nothing goes
// over the network as the owner types, and the preview panel sends nothing (see src/widget/panel/preview.tsx).

type BotSettings = Parameters<typeof panelConfig>[0]["bot"];

/** The settings the form holds right now, as the save would store them (without validation). */
function botFromForm(form: HTMLFormElement): BotSettings {
  const data = new FormData(form);
  const s = (name: string) => String(data.get(name) ?? "").trim();
  const lines = (name: string) =>
    s(name)
      .split(/\r?\n/)
      .map((l) => l.trim())
      .filter(Boolean);
  const greetings: Record<string, string> = {};
  for (const g of GREETING_NAMES) if (s(g.name)) greetings[g.lang] = s(g.name);
  const startersByLang: Record<string, string[]> = {};
  for (const g of LANG_STARTER_NAMES) if (lines(g.name).length) startersByLang[g.lang] = lines(g.name);
  const language = s("language");
  return {
    displayName: s("displayName"),
    greeting: s("greeting"),
    greetings,
    starters: STARTER_NAMES.map(s).filter(Boolean),
    startersByLang,
    color: s("color"),
    language: isLang(language) ? language : "en",
    avatarUrl: s("avatarUrl"),
  };
}

type Props = {
  formRef: RefObject<HTMLFormElement | null>;
  widgetKey: string;
  businessName: string;
  /** Changes whenever the form may have changed (every input in it). */
  revision: number;
};

export function BotPreview({ formRef, widgetKey, businessName, revision }: Props) {
  const frame = useRef<HTMLIFrameElement>(null);
  const [src, setSrc] = useState<string | null>(null);
  // The language shown follows the form's "Language" until the owner picks one here.
  const [chosen, setChosen] = useState<Lang | null>(null);
  const [formLang, setFormLang] = useState<Lang>("en");
  const lang = chosen ?? formLang;

  const post = useCallback(() => {
    const form = formRef.current;
    const win = frame.current?.contentWindow;
    if (!form || !win) return;
    const bot = botFromForm(form);
    setFormLang((bot.language ?? "en") as Lang);
    const cfg = panelConfig(
      { name: businessName, widgetKey, bot },
      { lang: chosen ?? (bot.language as Lang), parentOrigin: null, pageUrl: "" },
    );
    win.postMessage({ michi: widgetKey, type: "preview", cfg }, location.origin);
  }, [formRef, widgetKey, businessName, chosen]);

  // The address carries this page as the embedding one (the platform's own origin, always allowed).
  useEffect(() => {
    const q = new URLSearchParams({ preview: "1", p: location.origin + location.pathname });
    setSrc(`/w/${encodeURIComponent(widgetKey)}?${q}`);
  }, [widgetKey]);

  // The panel says "ready" once it listens; it gets the form's state then, and after every change.
  useEffect(() => {
    const onMessage = (e: MessageEvent) => {
      const d = e.data as { michi?: unknown; type?: unknown } | null;
      if (e.source === frame.current?.contentWindow && d?.michi === widgetKey && d.type === "ready") post();
    };
    window.addEventListener("message", onMessage);
    return () => window.removeEventListener("message", onMessage);
  }, [post, widgetKey]);
  useEffect(() => {
    void revision;
    // After the input's own re-render (the colour picker writes the text field through React state).
    const id = setTimeout(post, 0);
    return () => clearTimeout(id);
  }, [post, revision]);

  return (
    <section aria-labelledby="preview-title" className="card space-y-3">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <h2 id="preview-title" className="font-semibold">
          Preview
        </h2>
        <label className="flex items-center gap-2 text-sm">
          Language
          <select
            className="input w-auto py-1"
            value={lang}
            onChange={(e) => setChosen(isLang(e.target.value) ? e.target.value : null)}
          >
            {Object.entries(LANGUAGE_LABELS).map(([code, label]) => (
              <option key={code} value={code}>
                {label}
              </option>
            ))}
          </select>
        </label>
      </div>
      <p className="muted text-sm">What a visitor sees as you type, before you save. It does not answer.</p>
      {src ? (
        <iframe
          ref={frame}
          src={src}
          title="Preview of your chat widget"
          className="h-[560px] w-full rounded-xl border border-[var(--border)] bg-white"
        />
      ) : null}
    </section>
  );
}
