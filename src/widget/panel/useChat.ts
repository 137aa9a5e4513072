import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import type { Citation } from "../../shared/citations";
import { codeMessage } from "../i18n";
import { parseMarkdown } from "../markdown";
import { plainText } from "../markdown-text";
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
  /** Why a reply failed: a server code (worded by the panel in its language) or "offline". */
  error?: string;
  /** For a reply: the visitor's words it answers, so Retry can send them again if they were never stored. */
  prompt?: string;
  /** For a reply: the stored visitor message it answers (from the stream's first event); Retry reuses it. */
  question?: string;
  /** For a reply: the stored answer's id, which the visitor's rating names. */
  serverId?: string;
  /** For a reply: the assistant offered a person (request_human), so the contact form shows under it. */
  form?: boolean;
  /** For a reply: the indexed pages it cited, as the server checked them (never URLs from its text). */
  sources?: Citation[];
};

/** The abort reason of the Stop button, told apart from a reset or the panel going away. */
const STOP = "stop";

/** The visitor-facing words for a reply's error code, always in the panel's language. */
export function errorText(cfg: Pick<PanelConfig, "t">, code: string | undefined): string {
  return code === "offline" ? cfg.t.offline : codeMessage(cfg.t, code ?? "error");
}

let seq = 0;
const nextId = () => `m${++seq}`;

type Stored = {
  id?: unknown;
  role?: unknown;
  content?: unknown;
  status?: unknown;
  reason?: unknown;
  chips?: { label?: unknown; state?: unknown }[];
};

const str = (v: unknown): v is string => typeof v === "string";

/**
 * The stored conversation as the panel shows it: answers with their chips, and, when the last question went
 * unanswered (a failed or cut answer, or none at all), a failed reply under it whose Retry answers that
 * stored question by its id.
 */
export function restoreMessages(stored: Stored[]): Msg[] {
  const out: Msg[] = [];
  let question: { id: string; text: string } | undefined;
  for (const m of stored) {
    if (!str(m.content) || !(m.role === "user" || m.role === "assistant")) continue;
    const id = nextId();
    if (m.role === "user") {
      question = str(m.id) ? { id: m.id, text: m.content } : undefined;
      out.push({ id, role: "user", text: m.content, chips: [], status: "done" });
      continue;
    }
    const chips: Chip[] = (Array.isArray(m.chips) ? m.chips : []).flatMap((c, i) =>
      str(c?.label)
        ? [{ id: `${id}c${i}`, label: c.label, state: c.state === "error" ? "error" : "done" }]
        : [],
    );
    const failed = m.status === "partial" || m.status === "failed";
    if (!failed || m.content || chips.length)
      out.push({
        id,
        role: "assistant",
        text: m.content,
        chips,
        status: failed ? "error" : "done",
        serverId: str(m.id) ? m.id : undefined,
      });
    const last = out[out.length - 1];
    if (failed && last) {
      if (last.role === "user") out.push({ id, role: "assistant", text: "", chips: [], status: "error" });
      const reply = out[out.length - 1] as Msg;
      reply.status = "error";
      reply.error = str(m.reason) ? m.reason : "error";
      reply.prompt = question?.text;
      reply.question = question?.id;
    }
  }
  const last = out[out.length - 1];
  // A question with no answer stored at all (the answer could not be saved, or is still being written).
  if (last?.role === "user" && question)
    out.push({
      id: nextId(),
      role: "assistant",
      text: "",
      chips: [],
      status: "error",
      error: "interrupted",
      prompt: question.text,
      question: question.id,
    });
  // Only the newest unanswered question can be retried (the server refuses older ones).
  for (const m of out) if (m !== out[out.length - 1] && m.status === "error") m.prompt = undefined;
  return out;
}

async function withToken<T>(session: Session, fn: (token: string) => Promise<T>): Promise<T> {
  try {
    return await fn(await session.token());
  } catch (e) {
    // A token the server refuses (secret rotated, tenant changed) is replaced once, then the error stands.
    if (e instanceof HttpError && e.status === 401) return fn(await session.token(true));
    throw e;
  }
}

export function useChat(
  cfg: PanelConfig,
  session: Session,
  announce: (text: string) => void,
  /** Called when a reply settles (answer or error), so the launcher can show an unread mark. */
  onSettled: () => void,
) {
  const [msgs, setMsgs] = useState<Msg[]>([]);
  const [busy, setBusy] = useState(false);
  /** Bumped when a stored conversation is shown, so the view can jump to its newest message. */
  const [restored, setRestored] = useState(0);
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
      const res = await fetch(`${base}/conversations/${encodeURIComponent(id)}?lang=${cfg.lang}`, {
        headers: { authorization: `Bearer ${token}` },
        signal: ctl.signal,
      });
      if (!res.ok) throw await httpError(res);
      return (await res.json()) as { messages?: Stored[] };
    }).then(
      (body) => {
        const loaded = restoreMessages(Array.isArray(body.messages) ? body.messages : []);
        setMsgs((current) => (current.length ? current : loaded));
        setRestored((n) => n + 1);
      },
      (e) => {
        if (e instanceof HttpError && (e.status === 404 || e.status === 403))
          session.setConversation(undefined);
      },
    );
    return () => ctl.abort();
  }, [session, base, cfg.lang]);

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
      const fail = (code: string) => {
        settled = true;
        update(reply.id, (m) => ({ ...m, status: "error", error: code }));
        announce(errorText(cfg, code));
        onSettled();
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
              update(reply.id, (m) => ({
                ...m,
                status: "done",
                serverId: e.messageId || undefined,
                ...(e.citations ? { sources: e.citations } : {}),
              }));
              announce(`${cfg.name}: ${plainText(parseMarkdown(text))}`);
              onSettled();
            } else {
              if (e.conversationId) session.setConversation(e.conversationId);
              fail(e.code);
            }
          },
          ctl.signal,
        );
      try {
        await withToken(session, attempt);
        if (!settled) fail(ctl.signal.reason === STOP ? "disconnected" : "offline");
      } catch (e) {
        // Stopped by the visitor: what arrived stays, marked as stopped (the server stores it the same way,
        // as a partial or failed answer whose reason is "disconnected"), and Retry can ask again.
        if (ctl.signal.aborted) {
          if (ctl.signal.reason === STOP && !settled) fail("disconnected");
          return;
        }
        // A refused retry (conversation gone, already answered): the next Retry sends the words anew.
        if (question && e instanceof HttpError && (e.status === 404 || e.status === 409))
          update(reply.id, (m) => ({ ...m, question: undefined }));
        if (e instanceof HttpError && e.status === 404 && session.conversationId()) {
          // The stored conversation is gone (retention, another visitor id): start a new one.
          session.setConversation(undefined);
        }
        fail(e instanceof HttpError ? e.code : "offline");
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

  return { msgs, busy, restored, send, retry, stop, reset };
}
