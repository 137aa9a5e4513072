import { useCallback, useRef, useState } from "preact/hooks";
import type { PanelConfig } from "../public-config";
import { type Msg, nextId, STOP } from "./messages";
import { streamReply } from "./reply-stream";
import { useRestore } from "./restore";
import type { Session } from "./session";
import { useLive } from "./useLive";

export function useChat(
  cfg: PanelConfig,
  session: Session,
  announce: (text: string) => void,
  /** Called when a reply settles (answer or error), so the launcher can show an unread mark. */
  onSettled: () => void,
) {
  const [msgs, setMsgs] = useState<Msg[]>([]);
  const [busy, setBusy] = useState(false);
  const abort = useRef<AbortController | null>(null);
  const base = `/api/widget/${encodeURIComponent(cfg.key)}`;
  const live = useLive(cfg, session, base, setMsgs, announce);
  const { follow, ask } = live;
  const restored = useRestore(
    cfg,
    session,
    base,
    useCallback(
      (loaded: Msg[], state: string) => {
        setMsgs((current) => (current.length ? current : loaded));
        // Followed only once the history is on screen, so a replayed message is recognised by its id.
        if (state === "waiting" || state === "person") follow(state);
      },
      [follow],
    ),
  );

  const change = useCallback(
    (id: string, fn: (m: Msg) => Msg) => setMsgs((ms) => ms.map((m) => (m.id === id ? fn(m) : m))),
    [],
  );
  const update = useReplyUpdate(change, follow, ask);

  const run = useCallback(
    async (prompt: string, question?: string, post?: { path: string; body: unknown }) => {
      const reply: Msg = {
        id: nextId(),
        role: "assistant",
        text: "",
        chips: [],
        status: "pending",
        ...(post ? {} : { prompt, question }),
      };
      setMsgs((ms) => [...ms, reply]);
      setBusy(true);
      const ctl = new AbortController();
      abort.current = ctl;
      try {
        await streamReply({
          cfg,
          session,
          base,
          reply,
          signal: ctl.signal,
          update,
          announce,
          onSettled,
          post,
        });
      } finally {
        if (abort.current === ctl) {
          abort.current = null;
          setBusy(false);
        }
      }
    },
    [base, cfg, session, announce, update, onSettled],
  );

  const stop = useCallback(() => abort.current?.abort(STOP), []);

  const send = useCallback(
    (raw: string) => {
      const text = raw.trim();
      if (!text || busy) return false;
      // A new message declines a card still waiting (the server does the same): it goes from the screen.
      setMsgs((ms) => [
        ...ms.map((m) => (m.confirm ? { ...m, confirm: undefined } : m)),
        { id: nextId(), role: "user", text, chips: [], status: "done" },
      ]);
      void run(text);
      return true;
    },
    [busy, run],
  );

  const retry = useCallback(
    (replyId: string) => {
      const failed = msgs.find((m) => m.id === replyId);
      if (!failed?.prompt || busy) return;
      setMsgs((ms) => ms.filter((m) => m.id !== replyId));
      // A question the server stored is answered again by its id; one that never reached it is sent anew.
      void run(failed.prompt, failed.question);
    },
    [msgs, busy, run],
  );

  const decide = useDecide(msgs, session, busy, change, run, cfg.lang);

  const reset = useCallback(() => {
    abort.current?.abort();
    abort.current = null;
    setBusy(false);
    session.setConversation(undefined);
    setMsgs([]);
    live.reset();
  }, [session, live.reset]);

  return { msgs, busy, restored, send, retry, stop, reset, live, decide };
}

type Run = (prompt: string, question?: string, post?: { path: string; body: unknown }) => Promise<void>;

/** The visitor's tap on a confirmation card, sent by the card's id; the card goes, the next round streams in. */
function useDecide(
  msgs: Msg[],
  session: Session,
  busy: boolean,
  change: (id: string, fn: (m: Msg) => Msg) => void,
  run: Run,
  lang: string,
) {
  return useCallback(
    (replyId: string, decision: "confirm" | "cancel") => {
      const card = msgs.find((m) => m.id === replyId)?.confirm;
      const conversation = session.conversationId();
      if (!card || !conversation || busy) return;
      change(replyId, (m) => ({ ...m, confirm: undefined }));
      void run("", undefined, {
        path: `/conversations/${encodeURIComponent(conversation)}/confirm`,
        body: { callId: card.callId, decision, lang },
      });
    },
    [msgs, session, busy, change, run, lang],
  );
}

/**
 * A reply's stream may say a person has the conversation (follow its live stream), or the assistant offered a
 * person (request_human): a live request first, the contact form only when nobody can chat.
 */
function useReplyUpdate(
  change: (id: string, fn: (m: Msg) => Msg) => void,
  follow: () => void,
  ask: () => Promise<unknown>,
) {
  return useCallback(
    (id: string, fn: (m: Msg) => Msg) =>
      change(id, (m) => {
        const next = fn(m);
        if (next.live && !m.live) queueMicrotask(() => follow());
        if (next.form && !m.form)
          queueMicrotask(() =>
            ask().then(
              (none) => none === null && change(id, (r) => ({ ...r, form: false })),
              () => {},
            ),
          );
        return next;
      }),
    [change, follow, ask],
  );
}
