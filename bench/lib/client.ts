import http from "node:http";
import { createParser } from "eventsource-parser";

// The visitor side: an HTTP client that opens a chat stream and reads its SSE events to the end, timing the
// turn from the request to the last byte. One keep-alive agent with no socket cap, as many browsers would be.

export type ChatEvent = { type: string; data: Record<string, unknown> };

export type TurnResult = {
  status: number;
  /** The stream ended with a `done` event. */
  done: boolean;
  ms: number;
  /** Time to the first `delta` event, when one came. */
  firstDeltaMs: number | null;
  events: ChatEvent[];
  /** The `error` event, or the JSON error body of a refused request. */
  error: { code: string; message: string } | null;
  /** The connection failed or the stream ended without done/error. */
  transportError: string | null;
  conversationId: string | null;
  messageId: string | null;
};

export type Client = {
  session(key: string): Promise<string>;
  chat(path: string, body: unknown, headers?: Record<string, string>, hooks?: TurnHooks): Promise<TurnResult>;
  close(): void;
};

export type TurnHooks = { onFirstDelta?: () => void; signal?: AbortSignal };

export function makeClient(base: string, origin: string): Client {
  const agent = new http.Agent({ keepAlive: true, maxSockets: Number.POSITIVE_INFINITY });
  const u = new URL(base);

  function request(
    method: string,
    path: string,
    body: string | undefined,
    headers: Record<string, string>,
    onResponse: (res: http.IncomingMessage) => void,
    onError: (err: Error) => void,
    signal?: AbortSignal,
  ) {
    const req = http.request(
      {
        host: u.hostname,
        port: u.port,
        method,
        path,
        agent,
        signal,
        headers: {
          origin,
          ...(body
            ? { "content-type": "application/json", "content-length": String(Buffer.byteLength(body)) }
            : {}),
          ...headers,
        },
      },
      onResponse,
    );
    req.on("error", onError);
    req.end(body);
  }

  return {
    session(key) {
      return new Promise((resolve, reject) => {
        request(
          "POST",
          `/api/widget/${key}/session`,
          "{}",
          {},
          (res) => {
            let raw = "";
            res.setEncoding("utf8");
            res.on("data", (c) => {
              raw += c;
            });
            res.on("end", () => {
              if (res.statusCode !== 200) return reject(new Error(`session: HTTP ${res.statusCode} ${raw}`));
              resolve((JSON.parse(raw) as { token: string }).token);
            });
          },
          reject,
        );
      });
    },

    chat(path, body, headers = {}, hooks = {}) {
      const started = performance.now();
      return new Promise<TurnResult>((resolve) => {
        const r: TurnResult = {
          status: 0,
          done: false,
          ms: 0,
          firstDeltaMs: null,
          events: [],
          error: null,
          transportError: null,
          conversationId: null,
          messageId: null,
        };
        let settled = false;
        const finish = (transportError?: string) => {
          if (settled) return;
          settled = true;
          r.ms = performance.now() - started;
          if (transportError) r.transportError = transportError;
          else if (r.status === 200 && !r.done && !r.error)
            r.transportError = "stream ended without done or error";
          resolve(r);
        };
        const onEvent = (type: string, data: Record<string, unknown>) => {
          r.events.push({ type, data });
          if (type === "delta" && r.firstDeltaMs === null) {
            r.firstDeltaMs = performance.now() - started;
            hooks.onFirstDelta?.();
          }
          if (type === "done") {
            r.done = true;
            r.conversationId = (data.conversationId as string) ?? null;
            r.messageId = (data.messageId as string) ?? null;
          }
          if (type === "error") {
            r.error = { code: String(data.code), message: String(data.message ?? "") };
            r.conversationId = (data.conversationId as string) ?? null;
            r.messageId = (data.messageId as string) ?? null;
          }
        };
        request(
          "POST",
          path,
          JSON.stringify(body),
          headers,
          (res) => {
            r.status = res.statusCode ?? 0;
            res.setEncoding("utf8");
            if (r.status !== 200) {
              let raw = "";
              res.on("data", (c) => {
                raw += c;
              });
              res.on("end", () => {
                try {
                  const e = (JSON.parse(raw) as { error?: { code?: string; message?: string } }).error;
                  r.error = { code: String(e?.code ?? r.status), message: String(e?.message ?? "") };
                } catch {
                  r.error = { code: String(r.status), message: "" };
                }
                finish();
              });
              res.on("error", (e) => finish(e.message));
              return;
            }
            const parser = createParser({
              onEvent(ev) {
                try {
                  onEvent(ev.event ?? "message", JSON.parse(ev.data) as Record<string, unknown>);
                } catch {
                  onEvent(ev.event ?? "message", { raw: ev.data });
                }
              },
            });
            res.on("data", (c: string) => parser.feed(c));
            res.on("end", () => finish());
            res.on("error", (e) => finish(e.message));
            res.on("aborted", () => finish("aborted"));
          },
          (err) => finish(err.message),
          hooks.signal,
        );
      });
    },

    close() {
      agent.destroy();
    },
  };
}
