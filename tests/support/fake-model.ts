import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { pathToFileURL } from "node:url";
import { z } from "zod";
import { DIALECTS } from "./dialects";
import { type DialectSetting, playDialect } from "./fake-model-dialect";
import {
  bodySchema,
  type FakeChatBody,
  fillTemplate,
  pickStep,
  promptTokens,
  type Rule,
  roughTokens,
  rulesSchema,
  type Step,
  stepSchema,
} from "./fake-model-script";

// A small OpenAI-compatible chat-completions server for tests. Test equipment, not a product feature:
// it answers from a script (rules matched on the last user message, plus one-shot queued steps) and records
// every request so a test can assert exactly what the model was sent.

export type { FakeChatBody, FakeMessage, Rule, Step } from "./fake-model-script";

export type RecordedRequest = {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: FakeChatBody;
  receivedAt: number;
};

export type FakeModel = {
  /** Base URL ending in /v1, for OPENAI_BASE_URL. */
  url: string;
  port: number;
  requests: RecordedRequest[];
  setRules(rules: Rule[]): void;
  enqueue(...responses: Step[]): void;
  /** Speak a provider's dialect (tests/support/dialects), or plain OpenAI again with null. */
  setDialect(setting: DialectSetting | null): void;
  reset(): void;
  close(): Promise<void>;
};

const dialectControl = z.object({
  name: z.string().nullable(),
  flags: z.object({ toolsOff: z.boolean().optional(), refuseMaxTokens: z.boolean().optional() }).optional(),
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function chunks(text: string, size: number) {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const parts: Buffer[] = [];
  for await (const part of req) parts.push(part as Buffer);
  const raw = Buffer.concat(parts).toString("utf8");
  return raw ? JSON.parse(raw) : undefined;
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

type Play = { res: ServerResponse; body: FakeChatBody; step: Step; closed: () => boolean };

async function play({ res, body, step, closed }: Play) {
  const id = `chatcmpl-${randomUUID()}`;
  const created = Math.floor(Date.now() / 1000);
  const base = { id, created, model: body.model };
  const stream = body.stream === true;
  const wantUsage = body.stream_options?.include_usage === true;
  const prompt = promptTokens(body);

  if (step.type === "http_error") {
    const errBody = step.body ?? {
      error: { message: `fake model error ${step.status}`, type: "fake_error", code: String(step.status) },
    };
    const wait = step.headers ?? { "retry-after-ms": String(step.retryAfterMs ?? 1) };
    sendJson(res, step.status, errBody, wait);
    return;
  }
  if (step.type === "hangup") {
    res.socket?.destroy();
    return;
  }
  // A hung server (a local model still loading, a proxy holding the request): not even the headers come.
  if (step.type === "silent") return;
  if (step.type === "text" && step.delayMs) await sleep(step.delayMs);

  if (!stream) {
    if (step.type === "stall") return; // never answers; the client must time out or give up
    if (step.type === "cut") {
      res.socket?.destroy();
      return;
    }
    const message =
      step.type === "tool_calls"
        ? { role: "assistant", content: null, tool_calls: toolCalls(step) }
        : { role: "assistant", content: fillTemplate(step.text, body.messages) };
    const completion = roughTokens(JSON.stringify(message.content ?? message.tool_calls ?? ""));
    sendJson(res, 200, {
      ...base,
      object: "chat.completion",
      choices: [{ index: 0, message, finish_reason: step.type === "tool_calls" ? "tool_calls" : "stop" }],
      usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion },
    });
    return;
  }

  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  res.flushHeaders();
  const send = (choices: unknown[], extra: Record<string, unknown> = {}) => {
    if (!closed())
      res.write(
        `data: ${JSON.stringify({ ...base, object: "chat.completion.chunk", choices, ...extra })}\n\n`,
      );
  };
  const delta = (d: Record<string, unknown>, finish: string | null = null) =>
    send([{ index: 0, delta: d, finish_reason: finish }]);

  if (step.type === "stall") return; // headers sent, then silence until the client goes away

  delta({ role: "assistant", content: "" });
  let produced = "";
  let finish = "stop";
  if (step.type === "tool_calls") {
    finish = "tool_calls";
    toolCalls(step).forEach((call, index) => {
      // Arguments arrive in pieces, as real providers send them.
      const [first = "", ...rest] = chunks(call.function.arguments, 8);
      delta({
        tool_calls: [
          { index, id: call.id, type: "function", function: { name: call.function.name, arguments: first } },
        ],
      });
      for (const piece of rest) delta({ tool_calls: [{ index, function: { arguments: piece } }] });
      produced += call.function.name + call.function.arguments;
    });
  } else {
    const text = fillTemplate(step.text, body.messages);
    const size = step.type === "text" ? (step.chunkSize ?? 12) : 4;
    for (const piece of chunks(text, size)) {
      if (closed()) return;
      delta({ content: piece });
      produced += piece;
      if (step.type === "slow_text") await sleep(step.chunkDelayMs);
    }
    if (step.type === "cut") {
      // Give the written chunks a moment to leave, then drop the connection without [DONE].
      await sleep(20);
      res.socket?.destroy();
      return;
    }
  }
  delta({}, finish);
  if (wantUsage) {
    const completion = roughTokens(produced);
    send([], {
      usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion },
    });
  }
  if (!closed()) res.end("data: [DONE]\n\n");
}

function toolCalls(step: Extract<Step, { type: "tool_calls" }>) {
  return step.calls.map((c) => ({
    id: c.id ?? `call_${randomUUID().slice(0, 8)}`,
    type: "function" as const,
    function: { name: c.name, arguments: c.arguments },
  }));
}

export async function startFakeModel(opts: { port?: number; host?: string } = {}): Promise<FakeModel> {
  const host = opts.host ?? "127.0.0.1";
  let rules: Rule[] = [];
  const queue: Step[] = [];
  let dialect: DialectSetting | null = null;
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? "/", "http://fake");
    const route = `${req.method} ${url.pathname}`;
    try {
      if (route === "POST /__control/rules") {
        rules = rulesSchema.parse(await readJson(req));
        return sendJson(res, 200, { ok: true });
      }
      if (route === "POST /__control/enqueue") {
        queue.push(...z.array(stepSchema).parse(await readJson(req)));
        return sendJson(res, 200, { ok: true });
      }
      if (route === "GET /__control/requests") return sendJson(res, 200, requests);
      if (route === "POST /__control/dialect") {
        const { name, flags } = dialectControl.parse(await readJson(req));
        const found = DIALECTS.find((d) => d.name === name);
        if (name && !found) return sendJson(res, 400, { error: { message: `no dialect ${name}` } });
        dialect = found ? { dialect: found, flags: flags ?? {} } : null;
        return sendJson(res, 200, { ok: true });
      }
      if (route === "POST /__control/reset") {
        model.reset();
        return sendJson(res, 200, { ok: true });
      }
      if (route === "GET /v1/models") {
        return sendJson(res, 200, { object: "list", data: [{ id: "fake-model", object: "model" }] });
      }
      if (route !== "POST /v1/chat/completions") {
        return sendJson(res, 404, { error: { message: `no route ${route}`, type: "not_found" } });
      }
      const parsed = bodySchema.safeParse(await readJson(req).catch(() => undefined));
      if (!parsed.success) {
        return sendJson(res, 400, {
          error: { message: "invalid request body", type: "invalid_request_error" },
        });
      }
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers[k] = v;
      requests.push({
        method: "POST",
        path: url.pathname,
        headers,
        body: parsed.data,
        receivedAt: Date.now(),
      });
      const step = queue.shift() ?? pickStep(rules, parsed.data.messages);
      let gone = false;
      res.on("close", () => {
        gone = true;
      });
      const closed = () => gone || res.destroyed;
      if (parsed.data.stream && (await playDialect(res, parsed.data, step, dialect, closed))) return;
      await play({ res, body: parsed.data, step, closed });
    } catch (err) {
      if (!res.headersSent) sendJson(res, 400, { error: { message: String(err), type: "fake_model_error" } });
      else res.destroy();
    }
  };

  const server: Server = createServer((req, res) => void handle(req, res));
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port ?? 0, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const model: FakeModel = {
    url: `http://${host.includes(":") ? `[${host}]` : host}:${port}/v1`,
    port,
    requests,
    setRules(next) {
      rules = rulesSchema.parse(next);
    },
    enqueue(...steps) {
      queue.push(...steps);
    },
    setDialect(setting) {
      dialect = setting;
    },
    reset() {
      dialect = null;
      rules = [];
      queue.length = 0;
      requests.length = 0;
    },
    close() {
      for (const s of sockets) s.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
  return model;
}

export { fakeModelControl } from "./fake-model-control";

const isMain = process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href;
if (isMain) {
  const arg = (name: string) => {
    const i = process.argv.indexOf(`--${name}`);
    return i > 0 ? process.argv[i + 1] : undefined;
  };
  const model = await startFakeModel({ port: Number(arg("port") ?? 0), host: arg("host") });
  console.log(`fake model listening: ${model.url}`);
  const stop = () => void model.close().then(() => process.exit(0));
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}
