// The visitor's live stream (issue #28): Server-Sent Events over fetch (EventSource cannot send the
// Authorization header), read from the server's live log. Each event's seq is its SSE id: the stream resumes
// after the last seq seen (`lastEventId` in the query), so a dropped connection, a sleeping laptop or a
// restarted server delivers what was missed, in order, and an event seen once is never shown again.
import { createParser } from "eventsource-parser";
import { VISITOR_LIVE_KINDS, type VisitorLiveEvent } from "@/shared/live-events";
import { auth } from "./identity";

export type LiveConnection = {
  /** The widget API's base, `/api/widget/<key>`. */
  base: string;
  /** The visitor's token; `force` renews a token the server refused. */
  token(force?: boolean): Promise<string>;
  /** The last seq already shown (e.g. after a reload); 0 replays the conversation's live events. */
  after?: number;
  /** The panel's language, so a refusal (too many open windows) comes back in it. */
  lang?: string;
};

const RETRY_MIN_MS = 500;
const RETRY_MAX_MS = 15_000;
/** The server sends a comment every 20 s; this long without a byte means the connection is dead. */
const SILENCE_MS = 50_000;

const str = (v: unknown): v is string => typeof v === "string";

/** One SSE message as a typed event; anything unexpected (or not for a visitor) is dropped. */
function toLiveEvent(kind: string | undefined, data: string): VisitorLiveEvent | null {
  try {
    const e = JSON.parse(data) as Record<string, unknown> | null;
    const d = e?.data as Record<string, unknown> | undefined;
    if (!e || !d || typeof d !== "object" || !Number.isSafeInteger(e.seq) || e.kind !== kind) return null;
    if (!(VISITOR_LIVE_KINDS as readonly unknown[]).includes(kind) || !str(e.conversationId)) return null;
    if (kind === "state" ? !str(d.state) : kind !== "assigned" && (!str(d.text) || !str(d.messageId)))
      return null;
    const agent = d.agent as Record<string, unknown> | undefined;
    if ((kind === "agent_message" || kind === "assigned" || agent) && !(agent && str(agent.name)))
      return null;
    return e as unknown as VisitorLiveEvent;
  } catch {
    return null;
  }
}

/**
 * Delivers the conversation's live events to `onEvent`, each once and in order, reconnecting with backoff
 * until the returned function is called (or the conversation is gone: the server answers 404).
 */
export function subscribeLive(
  conversationId: string,
  onEvent: (e: VisitorLiveEvent) => void,
  conn: LiveConnection,
): () => void {
  let last = conn.after ?? 0;
  let stopped = false;
  let retry = RETRY_MIN_MS;
  let current: AbortController | undefined;
  let wait: ReturnType<typeof setTimeout> | undefined;
  const lang = conn.lang ? `&lang=${encodeURIComponent(conn.lang)}` : "";
  const url = () =>
    `${conn.base}/conversations/${encodeURIComponent(conversationId)}/events?lastEventId=${last}${lang}`;

  async function once(force: boolean): Promise<number> {
    const ac = new AbortController();
    current = ac;
    let silence: ReturnType<typeof setTimeout> | undefined;
    const alive = () => {
      clearTimeout(silence);
      silence = setTimeout(() => ac.abort(), SILENCE_MS);
    };
    try {
      alive();
      const res = await fetch(url(), {
        headers: { accept: "text/event-stream", ...auth(await conn.token(force)) },
        signal: ac.signal,
        cache: "no-store",
      });
      if (!res.ok || !res.body) return res.status;
      const parser = createParser({
        onEvent(m) {
          if (m.event === "ready") retry = RETRY_MIN_MS;
          const e = toLiveEvent(m.event, m.data);
          // The log's order is the delivery order, so anything at or below the last seq was shown already.
          if (!e || e.seq <= last) return;
          last = e.seq;
          onEvent(e);
        },
      });
      const reader = res.body.getReader();
      const decoder = new TextDecoder();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        alive();
        parser.feed(decoder.decode(value, { stream: true }));
      }
      return 0;
    } catch {
      return 0;
    } finally {
      clearTimeout(silence);
    }
  }

  async function run() {
    let force = false;
    while (!stopped) {
      const status = await once(force);
      if (stopped || status === 404) return;
      // A refused token is renewed once at once; anything else waits, longer each time (with jitter).
      force = status === 401 && !force;
      if (force) continue;
      await new Promise((r) => {
        wait = setTimeout(r, retry * (0.5 + Math.random() / 2));
      });
      retry = Math.min(retry * 2, RETRY_MAX_MS);
    }
  }

  void run();
  return () => {
    stopped = true;
    clearTimeout(wait);
    current?.abort();
  };
}
