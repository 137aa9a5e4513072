import { useEffect, useState } from "preact/hooks";
import { safeCitations } from "@/shared/citations";
import type { PanelConfig } from "../public-config";
import { auth } from "./identity";
import { type Chip, type Msg, nextId } from "./messages";
import { type Session, withToken } from "./session";
import { confirmCardOf, HttpError, httpError } from "./sse";

export type Stored = {
  id?: unknown;
  role?: unknown;
  content?: unknown;
  status?: unknown;
  reason?: unknown;
  chips?: { label?: unknown; state?: unknown }[];
  citations?: unknown;
  note?: unknown;
  rating?: unknown;
  agent?: { name?: unknown; avatarUrl?: unknown };
};

const str = (v: unknown): v is string => typeof v === "string";

/**
 * The stored conversation as the panel shows it: answers with their chips, and, when the last question went
 * unanswered (a failed or cut answer, or none at all), a failed reply under it whose Retry answers that
 * stored question by its id.
 */
export function restoreMessages(stored: Stored[], withPerson = false, pending?: unknown): Msg[] {
  const out: Msg[] = [];
  let question: { id: string; text: string } | undefined;
  for (const m of stored) {
    if (!str(m.content) || !(m.role === "user" || m.role === "assistant" || m.role === "agent")) continue;
    const id = nextId();
    if (m.role === "agent") {
      // A person answered: what the visitor asked before is handled, nothing to retry.
      question = undefined;
      const name = str(m.agent?.name) ? m.agent.name : "";
      out.push({
        id,
        role: "agent",
        text: m.content,
        chips: [],
        status: "done",
        agent: str(m.agent?.avatarUrl) ? { name, avatarUrl: m.agent.avatarUrl } : { name },
        serverId: str(m.id) ? m.id : undefined,
      });
      continue;
    }
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
    // Checked like the live stream's: only https pages the server named.
    const sources = safeCitations(m.citations);
    if (!failed || m.content || chips.length)
      out.push({
        id,
        role: "assistant",
        text: m.content,
        chips,
        status: failed ? "error" : "done",
        serverId: str(m.id) ? m.id : undefined,
        ...(sources.length ? { sources } : {}),
        ...(str(m.note) ? { note: m.note } : {}),
        ...(m.rating === "up" || m.rating === "down" ? { rating: m.rating } : {}),
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
  // A confirmation card still waiting: the question is answered by it (its round stored no words).
  const card = pending === undefined ? null : confirmCardOf(pending);
  if (card) {
    if (last?.role === "assistant") last.confirm = card;
    else out.push({ id: nextId(), role: "assistant", text: "", chips: [], status: "done", confirm: card });
    return out;
  }
  // A question with no answer stored at all (the answer could not be saved, or is still being written);
  // while a person is asked for or has the conversation, the person answers it, not the bot.
  if (last?.role === "user" && question && !withPerson)
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

/** The earlier conversation, after a reload. A conversation the server no longer shows us is forgotten. */
export function useRestore(
  cfg: PanelConfig,
  session: Session,
  base: string,
  show: (loaded: Msg[], live: string) => void,
): number {
  /** Bumped when a stored conversation is shown, so the view can jump to its newest message. */
  const [restored, setRestored] = useState(0);
  useEffect(() => {
    const id = session.conversationId();
    if (!id) return;
    const ctl = new AbortController();
    withToken(session, async (token) => {
      const res = await fetch(`${base}/conversations/${encodeURIComponent(id)}?lang=${cfg.lang}`, {
        headers: auth(token),
        signal: ctl.signal,
      });
      if (!res.ok) throw await httpError(res);
      return (await res.json()) as { messages?: Stored[]; live?: unknown; pending?: unknown };
    }).then(
      (body) => {
        const live = str(body.live) ? body.live : "bot";
        const withPerson = live === "waiting" || live === "person";
        const stored = Array.isArray(body.messages) ? body.messages : [];
        show(restoreMessages(stored, withPerson, body.pending), live);
        setRestored((n) => n + 1);
      },
      (e) => {
        if (e instanceof HttpError && (e.status === 404 || e.status === 403))
          session.setConversation(undefined);
      },
    );
    return () => ctl.abort();
  }, [session, base, cfg.lang, show]);
  return restored;
}
