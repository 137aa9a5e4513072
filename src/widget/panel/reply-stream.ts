// One reply's request and the reading of its event stream (src/shared/chat-events.ts) into the reply.
import type { ChatEvent } from "@/shared/chat-events";
import { parseMarkdown } from "../markdown";
import { plainText } from "../markdown-text";
import type { PanelConfig } from "../public-config";
import { errorText, type Msg, STOP } from "./messages";
import { type Session, withToken } from "./session";
import { HttpError, postStream } from "./sse";

/** The request of one turn: the visitor's words, or the stored question a Retry answers again by its id. */
function chatBody(cfg: PanelConfig, session: Session, prompt: string, question: string | undefined) {
  return {
    conversationId: session.conversationId(),
    ...(question ? { retryOf: question } : { message: prompt }),
    lang: cfg.lang,
    pageUrl: cfg.pageUrl || undefined,
  };
}

/** A reply after one event of its stream. */
export function applyEvent(m: Msg, e: ChatEvent): Msg {
  switch (e.type) {
    case "start":
      return { ...m, question: e.data.visitorMessageId };
    case "delta":
      return { ...m, text: m.text + e.data.text };
    case "chip": {
      const { callId, label, state } = e.data;
      const chips = m.chips.some((c) => c.id === callId)
        ? m.chips.map((c) => (c.id === callId ? { ...c, state } : c))
        : [...m.chips, { id: callId, label, state }];
      return { ...m, chips };
    }
    case "handoff":
      return { ...m, form: true };
    case "confirm":
      return { ...m, confirm: e.data };
    case "check":
      // Hold: the streamed answer gives way to what was stored, and the contact form offers a person.
      return e.data.action === "mark" ? { ...m, note: e.data.note } : { ...m, text: e.data.text, form: true };
    case "live":
      // A person has the conversation: no bot answer (not even the start of one) stays on screen.
      return { ...m, status: "done", text: "", chips: [], live: true };
    case "done":
      return {
        ...m,
        status: "done",
        serverId: e.data.messageId || undefined,
        ...(e.data.citations ? { sources: e.data.citations } : {}),
      };
    case "error":
      // A partial or failed answer the server stored keeps its id, as the same answer restored after a reload.
      return { ...m, status: "error", error: e.data.code, serverId: e.data.messageId ?? m.serverId };
  }
}

/** The conversation a stream event names: kept at once, so a reload or a link followed mid-answer finds it. */
function conversationOf(e: ChatEvent): string | undefined {
  return e.type === "start" || e.type === "done" || e.type === "error" ? e.data.conversationId : undefined;
}

/** Why a stream that ended without `done` or `error` failed, or null when nothing should be shown. */
function failureOf(err: unknown, signal: AbortSignal, settled: boolean): string | null {
  // Stopped by the visitor: what arrived stays, marked as stopped (the server stores it the same way, as a
  // partial or failed answer whose reason is "disconnected"), and Retry can ask again.
  if (signal.aborted) return signal.reason === STOP && !settled ? "disconnected" : null;
  if (err === undefined) return settled ? null : "offline";
  return err instanceof HttpError ? err.code : "offline";
}

type Stream = {
  cfg: PanelConfig;
  session: Session;
  base: string;
  reply: Msg;
  signal: AbortSignal;
  update: (id: string, fn: (m: Msg) => Msg) => void;
  announce: (text: string) => void;
  onSettled: () => void;
  /** Another stream than the chat's: the round after a confirmation card's Confirm or Cancel. */
  post?: { path: string; body: unknown };
};

/** Asks for one answer and reads its stream into the reply; settles the reply whatever happens. */
export async function streamReply({
  cfg,
  session,
  base,
  reply,
  signal,
  update,
  announce,
  onSettled,
  post,
}: Stream) {
  const { prompt = "", question } = reply;
  let text = "";
  let settled = false;
  const settle = (announcement: string) => {
    settled = true;
    announce(announcement);
    onSettled();
  };
  const onEvent = (e: ChatEvent) => {
    const conversation = conversationOf(e);
    if (conversation) session.setConversation(conversation);
    update(reply.id, (m) => applyEvent(m, e));
    if (e.type === "delta") text += e.data.text;
    else if (e.type === "check" && e.data.action === "hold") text = e.data.text;
    else if (e.type === "chip" && e.data.state === "start") announce(`${e.data.label}…`);
    else if (e.type === "confirm")
      announce(`${e.data.title} ${e.data.fields.map((f) => `${f.label}: ${f.value}.`).join(" ")}`);
    else if (e.type === "done") settle(`${cfg.name}: ${plainText(parseMarkdown(text))}`);
    else if (e.type === "error") settle(errorText(cfg, e.data.code));
    // A person has the conversation: the reply ends here, with nothing to read; their words come live.
    else if (e.type === "live") {
      settled = true;
      onSettled();
    }
  };
  const fail = (code: string) => {
    update(reply.id, (m) => ({ ...m, status: "error", error: code }));
    settle(errorText(cfg, code));
  };
  let failure: unknown;
  try {
    await withToken(session, (token) =>
      post
        ? postStream(`${base}${post.path}`, token, post.body, onEvent, signal)
        : postStream(`${base}/chat`, token, chatBody(cfg, session, prompt, question), onEvent, signal),
    );
  } catch (e) {
    failure = e ?? new Error("stream failed");
    if (!signal.aborted && e instanceof HttpError) {
      // A refused retry (conversation gone, already answered): the next Retry sends the words anew.
      if (question && (e.status === 404 || e.status === 409))
        update(reply.id, (m) => ({ ...m, question: undefined }));
      // The stored conversation is gone (retention, another visitor id): start a new one.
      if (e.status === 404 && session.conversationId()) session.setConversation(undefined);
    }
  } finally {
    const code = failureOf(failure, signal, settled);
    if (code) fail(code);
  }
}
