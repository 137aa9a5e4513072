/** @jsxImportSource preact */
import { useEffect, useMemo, useState } from "preact/hooks";
import { fill } from "@/shared/fill";
import { parseMarkdown } from "../markdown";
import type { PanelConfig } from "../public-config";
import { AnswerExtras } from "./AnswerExtras";
import { ConfirmCard } from "./ConfirmCard";
import { AgentMessage } from "./LiveBar";
import { Markdown } from "./Markdown";
import { errorText, type Msg } from "./messages";
import type { Session } from "./session";

/** After this long with nothing new, a pending reply says it is still working (the dots alone look stuck). */
const SLOW_MS = 6000;

/** True once a pending reply has shown nothing new (text or chip) for SLOW_MS. */
function useSlow(m: Msg): boolean {
  const [slow, setSlow] = useState(false);
  // biome-ignore lint/correctness/useExhaustiveDependencies: each new piece of the reply restarts the wait
  useEffect(() => {
    setSlow(false);
    if (m.status !== "pending") return;
    const t = setTimeout(() => setSlow(true), SLOW_MS);
    return () => clearTimeout(t);
  }, [m.status, m.text.length, m.chips.length]);
  return slow;
}

// A reply that failed for a reason a person can help with offers one next to Retry; a visitor who stopped
// the answer, or who is offline (a request would not go through either), is not offered one.
const offersPerson = (code: string | undefined) => code !== "disconnected" && code !== "offline";

type ReplyProps = {
  m: Msg;
  cfg: PanelConfig;
  session: Session;
  onRetry: (id: string) => void;
  onTalk: () => void;
  onDecide: (id: string, decision: "confirm" | "cancel") => void;
};

function Reply({ m, cfg, session, onRetry, onTalk, onDecide }: ReplyProps) {
  const nodes = useMemo(() => parseMarkdown(m.text), [m.text]);
  const slow = useSlow(m);
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
      {slow && m.status === "pending" && (
        <p class="slow" role="status">
          {cfg.t.stillWorking}
        </p>
      )}
      {m.note && <p class="fig-note">{m.note}</p>}
      {m.sources && m.sources.length > 0 && (
        <ol class="cites" aria-label={cfg.t.sources}>
          {m.sources.map((c) => (
            <li key={c.n}>
              {c.url ? (
                <a href={c.url} target="_blank" rel="noopener noreferrer">
                  <b>{c.n}</b> {c.title || new URL(c.url).hostname}
                  <small> · {new URL(c.url).hostname}</small>
                </a>
              ) : (
                // A document the business uploaded: no public address, so its title without a link.
                <span>
                  <b>{c.n}</b> {c.title}
                </span>
              )}
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
          {offersPerson(m.error) && (
            <button type="button" onClick={onTalk}>
              {cfg.h.talk}
            </button>
          )}
        </div>
      )}
      {m.confirm && <ConfirmCard card={m.confirm} cfg={cfg} onDecide={(d) => onDecide(m.id, d)} />}
      <AnswerExtras m={m} cfg={cfg} session={session} />
    </li>
  );
}

export function Messages({
  cfg,
  session,
  msgs,
  onRetry,
  onTalk,
  onDecide,
}: Omit<ReplyProps, "m"> & { msgs: Msg[] }) {
  const greeting = useMemo(() => parseMarkdown(cfg.greeting), [cfg.greeting]);
  return (
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
        m.live && !m.text ? null : m.role === "agent" ? (
          <AgentMessage key={m.id} m={m} cfg={cfg} session={session} />
        ) : m.role === "user" ? (
          <li key={m.id} class="msg me">
            <span class="sr">{cfg.t.you}: </span>
            <div class="bubble">{m.text}</div>
          </li>
        ) : (
          <Reply
            key={m.id}
            m={m}
            cfg={cfg}
            session={session}
            onRetry={onRetry}
            onTalk={onTalk}
            onDecide={onDecide}
          />
        ),
      )}
    </ul>
  );
}
