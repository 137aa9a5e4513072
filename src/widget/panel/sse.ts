// Server-Sent Events over fetch: EventSource cannot POST or send an Authorization header.
import { createParser } from "eventsource-parser";
import type { ChatEvent, ChipState, ConfirmCard } from "@/shared/chat-events";
import { safeCitations } from "@/shared/citations";
import { auth } from "./identity";

/** A refusal before any stream started: the JSON error body the widget API answers with. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

const str = (v: unknown): v is string => typeof v === "string";

const optional = (v: unknown) => (str(v) ? v : undefined);

/** Turns one SSE message into a typed event; anything unexpected is dropped, never trusted. */
export function toEvent(name: string | undefined, data: string): ChatEvent | null {
  let d: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(data);
    if (!parsed || typeof parsed !== "object") return null;
    d = parsed as Record<string, unknown>;
  } catch {
    return null;
  }
  if (name === "start" && str(d.conversationId) && str(d.visitorMessageId))
    return {
      type: "start",
      data: { conversationId: d.conversationId, visitorMessageId: d.visitorMessageId },
    };
  if (name === "delta" && str(d.text)) return { type: "delta", data: { text: d.text } };
  if (
    name === "chip" &&
    str(d.callId) &&
    str(d.label) &&
    ["start", "done", "error"].includes(d.state as string)
  )
    return { type: "chip", data: { callId: d.callId, label: d.label, state: d.state as ChipState } };
  if (name === "done" && str(d.conversationId)) {
    // Only checked https links of pages the server names; a citation it cannot check is dropped.
    const citations = safeCitations(d.citations);
    return {
      type: "done",
      data: {
        conversationId: d.conversationId,
        messageId: optional(d.messageId) ?? "",
        ...(citations.length ? { citations } : {}),
      },
    };
  }
  if (name === "handoff") return { type: "handoff", data: {} };
  if (name === "confirm") {
    const card = confirmCardOf(d);
    return card ? { type: "confirm", data: card } : null;
  }
  if (name === "live" && str(d.conversationId))
    return { type: "live", data: { conversationId: d.conversationId } };
  if (name === "error" && str(d.message))
    return {
      type: "error",
      data: {
        code: optional(d.code) ?? "error",
        message: d.message,
        conversationId: optional(d.conversationId),
        messageId: optional(d.messageId),
      },
    };
  return null;
}

/** A confirmation card as the server words it (also in the history after a reload); null when malformed. */
export function confirmCardOf(d: unknown): ConfirmCard | null {
  const c = d as Record<string, unknown> | null;
  if (!c || !str(c.callId) || !str(c.title) || !str(c.expiresAt) || !Array.isArray(c.fields)) return null;
  const fields = (c.fields as { label?: unknown; value?: unknown }[]).flatMap((f) =>
    str(f?.label) && str(f?.value) ? [{ label: f.label, value: f.value }] : [],
  );
  return { callId: c.callId, title: c.title, fields, expiresAt: c.expiresAt };
}

export async function httpError(res: Response): Promise<HttpError> {
  let code = "http_error";
  let message = "";
  try {
    const body = (await res.json()) as { error?: { code?: unknown; message?: unknown } };
    if (str(body?.error?.code)) code = body.error.code;
    if (str(body?.error?.message)) message = body.error.message;
  } catch {}
  return new HttpError(res.status, code, message);
}

/** POSTs `body` and calls `onEvent` for each event until the stream ends. Throws HttpError on a refusal. */
export async function postStream(
  url: string,
  token: string,
  body: unknown,
  onEvent: (e: ChatEvent) => void,
  signal?: AbortSignal,
): Promise<void> {
  const res = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "text/event-stream",
      ...auth(token),
    },
    body: JSON.stringify(body),
    signal,
  });
  if (!res.ok || !res.body) throw await httpError(res);
  const parser = createParser({
    onEvent(m) {
      const e = toEvent(m.event, m.data);
      if (e) onEvent(e);
    },
  });
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parser.feed(decoder.decode(value, { stream: true }));
  }
  parser.feed(decoder.decode());
}
