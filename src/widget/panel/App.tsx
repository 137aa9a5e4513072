/** @jsxImportSource preact */
import { useCallback, useEffect, useMemo, useRef, useState } from "preact/hooks";
import { fill } from "../i18n";
import { parseMarkdown } from "../markdown";
import type { PanelConfig } from "../public-config";
import { AnswerExtras } from "./AnswerExtras";
import type { Bridge } from "./bridge";
import { trapTab } from "./focus";
import { HandoffMenu, MenuContactForm } from "./Handoff";
import { Markdown } from "./Markdown";
import type { Session } from "./session";
import { errorText, type Msg, useChat } from "./useChat";

type Props = { cfg: PanelConfig; session: Session; bridge: Bridge };

const Icon = ({ d }: { d: string }) => (
  <svg viewBox="0 0 24 24" width="20" height="20" aria-hidden="true" focusable="false">
    <path d={d} fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" />
  </svg>
);
const PLUS = "M12 5v14M5 12h14";
const CLOSE = "M6 6l12 12M18 6L6 18";
const SEND = "M4 12l16-8-6 16-3-7-7-1z";
const STOP = "M7 7h10v10H7z";

function Reply({
  m,
  cfg,
  session,
  onRetry,
}: {
  m: Msg;
  cfg: PanelConfig;
  session: Session;
  onRetry: (id: string) => void;
}) {
  const nodes = useMemo(() => parseMarkdown(m.text), [m.text]);
  return (
    <li class="msg bot">
      <span class="sr">{cfg.name}: </span>
      {m.chips.length > 0 && (
        <ul class="chips">
          {m.chips.map((c) => (
            <li key={c.id} class={`chip ${c.state}`}>
              <span class="mark" aria-hidden="true" />
              {c.label}
              {c.state === "error" && <span class="why">{cfg.t.toolFailed}</span>}
            </li>
          ))}
        </ul>
      )}
      {m.text ? (
        <div class="bubble md">
          <Markdown nodes={nodes} />
        </div>
      ) : (
        m.status === "pending" && (
          <div class="typing">
            <span class="sr">{fill(cfg.t.typing, { name: cfg.name })}</span>
            <i />
            <i />
            <i />
          </div>
        )
      )}
      {m.sources && m.sources.length > 0 && (
        <ol class="cites" aria-label={cfg.t.sources}>
          {m.sources.map((c) => (
            <li key={c.n}>
              <a href={c.url} target="_blank" rel="noopener noreferrer">
                <b>{c.n}</b> {c.title || new URL(c.url).hostname}
                <small> · {new URL(c.url).hostname}</small>
              </a>
            </li>
          ))}
        </ol>
      )}
      {/* The answer's footer: its error and Retry today; room for per-answer actions (ratings) later. */}
      {m.status === "error" && (
        <div class="foot err">
          <span>{errorText(cfg, m.error)}</span>
          {m.prompt && (
            <button type="button" onClick={() => onRetry(m.id)}>
              {cfg.t.retry}
            </button>
          )}
        </div>
      )}
      <AnswerExtras m={m} cfg={cfg} session={session} />
    </li>
  );
}

export function App({ cfg, session, bridge }: Props) {
  const { t } = cfg;
  const live = useRef<HTMLDivElement>(null);
  const log = useRef<HTMLElement>(null);
  const input = useRef<HTMLTextAreaElement>(null);
  const root = useRef<HTMLDivElement>(null);
  const [draft, setDraft] = useState("");
  const [talk, setTalk] = useState(false);

  // Each announcement is a new node, so a polite screen reader queues it instead of skipping a repeat.
  const announce = useCallback((text: string) => {
    const el = live.current;
    if (!el) return;
    const p = document.createElement("p");
    p.textContent = text;
    el.append(p);
    while (el.childElementCount > 3) el.firstElementChild?.remove();
  }, []);

  const settled = useCallback(() => bridge.send("answer"), [bridge]);
  const { msgs, busy, restored, send, retry, stop, reset } = useChat(cfg, session, announce, settled);
  const greeting = useMemo(() => parseMarkdown(cfg.greeting), [cfg.greeting]);

  useEffect(() => session.keepFresh(), [session]);

  useEffect(() => {
    const stop = bridge.listen((m) => {
      if (m.type === "open" && m.focus) input.current?.focus();
    });
    // Announced only once listening: effects run after paint, so a "ready" sent at mount could be answered
    // before anyone hears it, and the panel would open without focus.
    bridge.send("ready");
    return stop;
  }, [bridge]);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key === "Escape" && bridge.framed) {
        e.preventDefault();
        bridge.send("close");
      } else if (e.key === "Tab" && root.current) trapTab(e, root.current);
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, [bridge]);

  // Follow the conversation while the visitor is at the bottom; leave them be when they scrolled up to read.
  const last = msgs[msgs.length - 1];
  useEffect(() => {
    const el = log.current;
    if (!el) return;
    if (last?.role === "user" || el.scrollHeight - el.scrollTop - el.clientHeight < 120)
      el.scrollTop = el.scrollHeight;
  }, [last]);

  // A conversation shown again after a reload opens at its newest message, as the visitor left it.
  useEffect(() => {
    const el = log.current;
    if (el && restored) el.scrollTop = el.scrollHeight;
  }, [restored]);

  const grow = (el: HTMLTextAreaElement) => {
    el.style.height = "auto";
    el.style.height = `${Math.min(el.scrollHeight, 140)}px`;
  };

  const submit = () => {
    if (send(draft)) {
      setDraft("");
      if (input.current) {
        input.current.value = "";
        grow(input.current);
      }
    }
  };

  return (
    <div class="panel" ref={root}>
      <header class="head">
        {cfg.avatarUrl ? (
          // biome-ignore lint/performance/noImgElement: Preact panel, not a Next.js page
          <img class="avatar" src={cfg.avatarUrl} alt="" />
        ) : (
          <span class="avatar" aria-hidden="true">
            {cfg.name.slice(0, 1).toUpperCase()}
          </span>
        )}
        <h1>{cfg.name}</h1>
        {/* The header's actions; further menu entries (e.g. talking to a person) slot in here. */}
        <div class="acts">
          <HandoffMenu cfg={cfg} onTalk={() => setTalk(true)} />
          <button
            type="button"
            class="icon"
            aria-label={t.newConversation}
            title={t.newConversation}
            onClick={() => {
              reset();
              setDraft("");
              input.current?.focus();
            }}
          >
            <Icon d={PLUS} />
          </button>
          {bridge.framed && (
            <button
              type="button"
              class="icon"
              aria-label={t.close}
              title={t.close}
              onClick={() => bridge.send("close")}
            >
              <Icon d={CLOSE} />
            </button>
          )}
        </div>
      </header>
      {/* Focusable so keyboard users can scroll a long conversation (axe: scrollable-region-focusable). */}
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard */}
      <section class="log" ref={log} aria-label={t.conversation} tabIndex={0}>
        <ul class="msgs">
          {cfg.greeting && (
            <li class="msg bot">
              <span class="sr">{cfg.name}: </span>
              <div class="bubble md">
                <Markdown nodes={greeting} />
              </div>
            </li>
          )}
          {msgs.map((m) =>
            m.role === "user" ? (
              <li key={m.id} class="msg me">
                <span class="sr">{t.you}: </span>
                <div class="bubble">{m.text}</div>
              </li>
            ) : (
              <Reply key={m.id} m={m} cfg={cfg} session={session} onRetry={retry} />
            ),
          )}
        </ul>
        {talk && <MenuContactForm cfg={cfg} session={session} onClose={() => setTalk(false)} />}
        {msgs.length === 0 && cfg.starters.length > 0 && (
          <fieldset class="starters">
            <legend class="sr">{t.suggestions}</legend>
            {cfg.starters.map((s) => (
              <button key={s} type="button" onClick={() => send(s)}>
                {s}
              </button>
            ))}
          </fieldset>
        )}
      </section>
      <form
        class="compose"
        onSubmit={(e) => {
          e.preventDefault();
          submit();
        }}
      >
        <label for="michi-input" class="sr">
          {t.messageLabel}
        </label>
        <textarea
          id="michi-input"
          ref={input}
          rows={1}
          maxLength={2000}
          placeholder={t.placeholder}
          value={draft}
          onInput={(e) => {
            setDraft(e.currentTarget.value);
            grow(e.currentTarget);
          }}
          onKeyDown={(e) => {
            // Enter sends; Shift+Enter is a new line; an IME composing Japanese keeps its Enter.
            if (e.key === "Enter" && !e.shiftKey && !e.isComposing && e.keyCode !== 229) {
              e.preventDefault();
              submit();
            }
          }}
        />
        {busy ? (
          // While an answer streams, Stop ends the turn and keeps what arrived.
          <button type="button" class="send" aria-label={t.stop} title={t.stop} onClick={stop}>
            <Icon d={STOP} />
          </button>
        ) : (
          <button type="submit" class="send" aria-label={t.send} title={t.send} disabled={!draft.trim()}>
            <Icon d={SEND} />
          </button>
        )}
      </form>
      <div class="sr" aria-live="polite" ref={live} />
    </div>
  );
}
