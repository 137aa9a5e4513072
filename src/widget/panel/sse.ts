// Server-Sent Events over fetch: EventSource cannot POST or send an Authorization header.
import { createParser } from "eventsource-parser";
import { type Citation, safeCitations } from "../../shared/citations";

export type ChipState = "start" | "done" | "error";
export type StreamEvent =
  | { type: "start"; conversationId: string; visitorMessageId: string }
  | { type: "chip"; callId: string; label: string; state: ChipState }
  | { type: "delta"; text: string }
  | { type: "done"; conversationId: string; messageId: string; citations?: Citation[] }
  | { type: "handoff" }
  | { type: "error"; code: string; message: string; conversationId?: string };

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

/** Turns one SSE message into a typed event; anything unexpected is dropped, never trusted. */
export function toEvent(name: string | undefined, data: string): StreamEvent | null {
  let d: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(data);
    if (!parsed || typeof parsed !== "object") return null;
    d = parsed as Record<string, unknown>;
  } catch {
    return null;
  }
  if (name === "start" && str(d.conversationId) && str(d.visitorMessageId))
    return { type: "start", conversationId: d.conversationId, visitorMessageId: d.visitorMessageId };
  if (name === "delta" && str(d.text)) return { type: "delta", text: d.text };
  if (
    name === "chip" &&
    str(d.callId) &&
    str(d.label) &&
    ["start", "done", "error"].includes(d.state as string)
  )
    return { type: "chip", callId: d.callId, label: d.label, state: d.state as ChipState };
  if (name === "done" && str(d.conversationId)) {
    const citations = safeCitations(d.citations);
    return {
      type: "done",
      conversationId: d.conversationId,
      messageId: str(d.messageId) ? d.messageId : "",
      ...(citations.length ? { citations } : {}),
    };
  }
  if (name === "handoff") return { type: "handoff" };
  if (name === "error" && str(d.message))
    return {
      type: "error",
      code: str(d.code) ? d.code : "error",
      message: d.message,
      conversationId: str(d.conversationId) ? d.conversationId : undefined,
    };
  return null;
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
  onEvent: (e: StreamEvent) => void,
  signal?: AbortSignal,
): Promise<void> {
  const res = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "text/event-stream",
      authorization: `Bearer ${token}`,
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
