import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import { codeMessage } from "../i18n";
import { parseMarkdown, plainText } from "../markdown";
import type { PanelConfig } from "../public-config";
import type { Session } from "./session";
import { type ChipState, HttpError, httpError, postStream } from "./sse";

export type Chip = { id: string; label: string; state: ChipState };
export type Msg = {
  id: string;
  role: "user" | "assistant";
  text: string;
  chips: Chip[];
  status: "pending" | "done" | "error";
  error?: string;
  /** For a reply: the visitor's words it answers, so Retry can send them again if they were never stored. */
  prompt?: string;
  /** For a reply: the stored visitor message it answers (from the stream's first event); Retry reuses it. */
  question?: string;
  /** For a reply: the stored answer's id, which the visitor's rating names. */
  serverId?: string;
  /** For a reply: the assistant offered a person (request_human), so the contact form shows under it. */
  form?: boolean;
};

let seq = 0;
const nextId = () => `m${++seq}`;

async function withToken<T>(session: Session, fn: (token: string) => Promise<T>): Promise<T> {
  try {
    return await fn(await session.token());
  } catch (e) {
    // A token the server refuses (secret rotated, tenant changed) is replaced once, then the error stands.
    if (e instanceof HttpError && e.status === 401) return fn(await session.token(true));
    throw e;
  }
}

export function useChat(cfg: PanelConfig, session: Session, announce: (text: string) => void) {
  const [msgs, setMsgs] = useState<Msg[]>([]);
  const [busy, setBusy] = useState(false);
  const abort = useRef<AbortController | null>(null);
  const base = `/api/widget/${encodeURIComponent(cfg.key)}`;

  const update = useCallback(
    (id: string, fn: (m: Msg) => Msg) => setMsgs((ms) => ms.map((m) => (m.id === id ? fn(m) : m))),
    [],
  );

  // The earlier conversation, after a reload. A conversation the server no longer shows us is forgotten.
  useEffect(() => {
    const id = session.conversationId();
    if (!id) return;
    const ctl = new AbortController();
    withToken(session, async (token) => {
      const res = await fetch(`${base}/conversations/${encodeURIComponent(id)}`, {
        headers: { authorization: `Bearer ${token}` },
        signal: ctl.signal,
      });
      if (!res.ok) throw await httpError(res);
      return (await res.json()) as { messages?: { id?: unknown; role?: unknown; content?: unknown }[] };
    }).then(
      (body) => {
        const loaded: Msg[] = (body.messages ?? []).flatMap((m) =>
          (m.role === "user" || m.role === "assistant") && typeof m.content === "string" && m.content
            ? [
                {
                  id: nextId(),
                  role: m.role,
                  text: m.content,
                  chips: [],
                  status: "done" as const,
                  serverId: typeof m.id === "string" ? m.id : undefined,
                },
              ]
            : [],
        );
        setMsgs((current) => (current.length ? current : loaded));
      },
      (e) => {
        if (e instanceof HttpError && (e.status === 404 || e.status === 403))
          session.setConversation(undefined);
      },
    );
    return () => ctl.abort();
  }, [session, base]);

  const run = useCallback(
    async (prompt: string, question?: string) => {
      const reply: Msg = {
        id: nextId(),
        role: "assistant",
        text: "",
        chips: [],
        status: "pending",
        prompt,
        question,
      };
      setMsgs((ms) => [...ms, reply]);
      setBusy(true);
      const ctl = new AbortController();
      abort.current = ctl;
      let text = "";
      let settled = false;
      const fail = (message: string) => {
        settled = true;
        update(reply.id, (m) => ({ ...m, status: "error", error: message }));
        announce(message);
      };
      const attempt = (token: string) =>
        postStream(
          `${base}/chat`,
          token,
          {
            conversationId: session.conversationId(),
            ...(question ? { retryOf: question } : { message: prompt }),
            lang: cfg.lang,
            pageUrl: cfg.pageUrl || undefined,
          },
          (e) => {
            if (e.type === "start") {
              // Kept at once, not at the end: a reload or a link followed mid-answer finds the conversation.
              session.setConversation(e.conversationId);
              update(reply.id, (m) => ({ ...m, question: e.visitorMessageId }));
            } else if (e.type === "delta") {
              text += e.text;
              update(reply.id, (m) => ({ ...m, text }));
            } else if (e.type === "chip") {
              update(reply.id, (m) => {
                const chips = m.chips.some((c) => c.id === e.callId)
                  ? m.chips.map((c) => (c.id === e.callId ? { ...c, state: e.state } : c))
                  : [...m.chips, { id: e.callId, label: e.label, state: e.state }];
                return { ...m, chips };
              });
              if (e.state === "start") announce(`${e.label}…`);
            } else if (e.type === "handoff") {
              update(reply.id, (m) => ({ ...m, form: true }));
            } else if (e.type === "done") {
              settled = true;
              session.setConversation(e.conversationId);
              update(reply.id, (m) => ({ ...m, status: "done", serverId: e.messageId || undefined }));
              announce(`${cfg.name}: ${plainText(parseMarkdown(text))}`);
            } else {
              if (e.conversationId) session.setConversation(e.conversationId);
              fail(codeMessage(cfg.t, e.code) ?? (e.message || cfg.t.error));
            }
          },
          ctl.signal,
        );
      try {
        await withToken(session, attempt);
        if (!settled) fail(cfg.t.offline);
      } catch (e) {
        if (ctl.signal.aborted) return;
        // A refused retry (conversation gone, already answered): the next Retry sends the words anew.
        if (question && e instanceof HttpError && (e.status === 404 || e.status === 409))
          update(reply.id, (m) => ({ ...m, question: undefined }));
        if (e instanceof HttpError && e.status === 404 && session.conversationId()) {
          // The stored conversation is gone (retention, another visitor id): start a new one.
          session.setConversation(undefined);
        }
        fail(e instanceof HttpError ? e.message || cfg.t.error : cfg.t.offline);
      } finally {
        if (abort.current === ctl) {
          abort.current = null;
          setBusy(false);
        }
      }
    },
    [base, cfg, session, announce, update],
  );

  const send = useCallback(
    (raw: string) => {
      const text = raw.trim();
      if (!text || busy) return false;
      setMsgs((ms) => [...ms, { id: nextId(), role: "user", text, chips: [], status: "done" }]);
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

  const reset = useCallback(() => {
    abort.current?.abort();
    abort.current = null;
    setBusy(false);
    session.setConversation(undefined);
    setMsgs([]);
  }, [session]);

  return { msgs, busy, send, retry, reset };
}
