/** @jsxImportSource preact */
import type { RefObject } from "preact";
import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import type { PanelConfig } from "../public-config";
import { codeMessage } from "../wording";
import type { Bridge } from "./bridge";
import { Composer } from "./Composer";
import { Messages } from "./Conversation";
import { trapTab } from "./focus";
import { HandoffMenu, MenuContactForm } from "./Handoff";
import { CLOSE, Icon, PLUS } from "./Icon";
import { LiveBar } from "./LiveBar";
import type { Msg } from "./messages";
import type { Session } from "./session";
import { useChat } from "./useChat";

/** `notice`: an error code the session met at start (a refused verified-visitor token), worded on top. */
type Props = { cfg: PanelConfig; session: Session; bridge: Bridge; notice?: string };
type Ref<T> = RefObject<T>;

/** A polite live region: each announcement is a new node, so a screen reader queues it instead of skipping a repeat. */
function useAnnouncer() {
  const live = useRef<HTMLDivElement>(null);
  const announce = useCallback((text: string) => {
    const el = live.current;
    if (!el) return;
    const p = document.createElement("p");
    p.textContent = text;
    el.append(p);
    while (el.childElementCount > 3) el.firstElementChild?.remove();
  }, []);
  return { live, announce };
}

/** The host page's messages and keys: focus on open, Escape closes a framed panel, Tab stays inside it. */
function useHost(bridge: Bridge, root: Ref<HTMLDivElement>, input: Ref<HTMLTextAreaElement>) {
  useEffect(() => {
    const stop = bridge.listen((m) => {
      if (m.type === "open" && m.focus) input.current?.focus();
    });
    // Announced only once listening: effects run after paint, so a "ready" sent at mount could be answered
    // before anyone hears it, and the panel would open without focus.
    bridge.send("ready");
    return stop;
  }, [bridge, input]);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key === "Escape" && bridge.framed) {
        e.preventDefault();
        bridge.send("close");
      } else if (e.key === "Tab" && root.current) trapTab(e, root.current);
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, [bridge, root]);
}

/**
 * Follows the conversation while the visitor is at the bottom and leaves them be when they scrolled up to
 * read; a conversation shown again after a reload opens at its newest message, as the visitor left it.
 */
function useFollow(log: Ref<HTMLElement>, last: Msg | undefined, restored: number) {
  useEffect(() => {
    const el = log.current;
    if (!el) return;
    if (last?.role === "user" || el.scrollHeight - el.scrollTop - el.clientHeight < 120)
      el.scrollTop = el.scrollHeight;
  }, [log, last]);

  useEffect(() => {
    const el = log.current;
    if (el && restored) el.scrollTop = el.scrollHeight;
  }, [log, restored]);
}

function Header({
  cfg,
  framed,
  onTalk,
  onNew,
  onClose,
}: {
  cfg: PanelConfig;
  framed: boolean;
  onTalk: () => void;
  onNew: () => void;
  onClose: () => void;
}) {
  const { t } = cfg;
  return (
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
        <HandoffMenu cfg={cfg} onTalk={onTalk} />
        <button
          type="button"
          class="icon"
          aria-label={t.newConversation}
          title={t.newConversation}
          onClick={onNew}
        >
          <Icon d={PLUS} />
        </button>
        {framed && (
          <button type="button" class="icon" aria-label={t.close} title={t.close} onClick={onClose}>
            <Icon d={CLOSE} />
          </button>
        )}
      </div>
    </header>
  );
}

/** "Start a new conversation?" under the header, with the safe answer focused. */
function ConfirmNew({ cfg, onYes, onNo }: { cfg: PanelConfig; onYes: () => void; onNo: () => void }) {
  const no = useRef<HTMLButtonElement>(null);
  useEffect(() => no.current?.focus(), []);
  return (
    <div class="confirm" role="alertdialog" aria-labelledby="michi-confirm">
      <p id="michi-confirm">{cfg.t.confirmNew}</p>
      <button type="button" onClick={onYes}>
        {cfg.t.yes}
      </button>
      <button type="button" ref={no} onClick={onNo}>
        {cfg.t.cancel}
      </button>
    </div>
  );
}

export function App({ cfg, session, bridge, notice }: Props) {
  const { t } = cfg;
  const log = useRef<HTMLElement>(null);
  const input = useRef<HTMLTextAreaElement>(null);
  const root = useRef<HTMLDivElement>(null);
  const [draft, setDraft] = useState("");
  // The contact form under the conversation, with why a person could not be asked for (if that was tried).
  const [talk, setTalk] = useState<false | { note?: string }>(false);
  const [asking, setAsking] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const { live: liveRegion, announce } = useAnnouncer();
  const settled = useCallback(() => bridge.send("answer"), [bridge]);
  const { msgs, busy, restored, send, retry, stop, reset, live, decide } = useChat(
    cfg,
    session,
    announce,
    settled,
  );
  // "Talk to a person": a live request when someone can chat, else the contact form, saying so honestly.
  const talkToPerson = useCallback(() => {
    setAsking(true);
    live
      .ask()
      .then(
        (none) =>
          none === null
            ? setTalk(false)
            : setTalk({
                note:
                  none === "closed"
                    ? cfg.l.outsideHours
                    : none === "nobody_online"
                      ? cfg.l.nobody
                      : undefined,
              }),
        () => setTalk({}),
      )
      .finally(() => setAsking(false));
  }, [live, cfg.l]);

  useEffect(() => session.keepFresh(), [session]);
  useHost(bridge, root, input);
  useFollow(log, msgs[msgs.length - 1], restored);

  return (
    <div class="panel" ref={root}>
      <Header
        cfg={cfg}
        framed={bridge.framed}
        onTalk={talkToPerson}
        // A conversation with messages is not cleared on one click: the visitor confirms first.
        onNew={() => (msgs.length > 0 ? setConfirming(true) : input.current?.focus())}
        onClose={() => bridge.send("close")}
      />
      {confirming && (
        <ConfirmNew
          cfg={cfg}
          onYes={() => {
            setConfirming(false);
            reset();
            setDraft("");
            input.current?.focus();
          }}
          onNo={() => setConfirming(false)}
        />
      )}
      {/* Focusable so keyboard users can scroll a long conversation (axe: scrollable-region-focusable). */}
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard */}
      <section class="log" ref={log} aria-label={t.conversation} tabIndex={0}>
        {notice && (
          <p class="err" role="alert">
            {codeMessage(t, notice)}
          </p>
        )}
        <Messages
          cfg={cfg}
          session={session}
          msgs={msgs}
          onRetry={retry}
          onTalk={talkToPerson}
          onDecide={decide}
        />
        <LiveBar cfg={cfg} session={session} live={live} asking={asking} onLeave={() => setTalk({})} />
        {talk && (
          <MenuContactForm cfg={cfg} session={session} note={talk.note} onClose={() => setTalk(false)} />
        )}
        {/* Waiting for (or talking with) a person, the starters' questions are for the assistant: hidden. */}
        {msgs.length === 0 && cfg.starters.length > 0 && live.state === "bot" && (
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
      <Composer
        cfg={cfg}
        input={input}
        draft={draft}
        setDraft={setDraft}
        busy={busy}
        send={send}
        stop={stop}
      />
      <div class="sr" aria-live="polite" ref={liveRegion} />
    </div>
  );
}
