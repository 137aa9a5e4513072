// The baseline of the chat overhead benchmark: the least any chat backend must do for the same turn, in a bare
// Node HTTP server with no framework. It takes the visitor's message, streams a completion from the same fake
// model, makes the same one https fetch when the model asks for the tool, streams the second completion back
// as SSE. No auth, no database, no limits, no projection, no logging: everything michi-chat adds on top is
// what the benchmark calls overhead. Started by bench/lib/servers.ts; reports its port over IPC.
import { readFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { createParser } from "eventsource-parser";
import { Agent, fetch } from "undici";

const [modelUrl, caFile, toolUrl] = process.argv.slice(2);
if (!modelUrl || !caFile || !toolUrl || !process.send) {
  console.error("usage: baseline.ts <modelUrl> <caFile> <toolUrl> (with an IPC channel)");
  process.exit(2);
}

const modelAgent = new Agent({ keepAliveTimeout: 30_000 });
const siteAgent = new Agent({ keepAliveTimeout: 30_000, connect: { ca: readFileSync(caFile, "utf8") } });

const TOOL = {
  type: "function",
  function: {
    name: "fetch_json",
    description: "Reads current information from the business's website.",
    parameters: { type: "object", properties: {}, required: [], additionalProperties: false },
  },
};

type Msg = Record<string, unknown>;
type Call = { id: string; name: string; arguments: string };

async function streamModel(messages: Msg[], onDelta: (t: string) => void, signal: AbortSignal) {
  const res = await fetch(`${modelUrl}/chat/completions`, {
    method: "POST",
    dispatcher: modelAgent,
    signal,
    headers: { "content-type": "application/json", authorization: "Bearer bench" },
    body: JSON.stringify({
      model: "fake-small",
      messages,
      tools: [TOOL],
      stream: true,
      stream_options: { include_usage: true },
    }),
  });
  if (!res.ok || !res.body) throw new Error(`model answered ${res.status}`);
  const calls: Call[] = [];
  const parser = createParser({
    onEvent(ev) {
      if (ev.data === "[DONE]") return;
      const chunk = JSON.parse(ev.data) as {
        choices?: {
          delta?: {
            content?: string;
            tool_calls?: { index: number; id?: string; function?: { name?: string; arguments?: string } }[];
          };
        }[];
      };
      const delta = chunk.choices?.[0]?.delta;
      if (delta?.content) onDelta(delta.content);
      for (const tc of delta?.tool_calls ?? []) {
        calls[tc.index] ??= { id: "", name: "", arguments: "" };
        const c = calls[tc.index]!;
        if (tc.id) c.id = tc.id;
        if (tc.function?.name) c.name += tc.function.name;
        if (tc.function?.arguments) c.arguments += tc.function.arguments;
      }
    },
  });
  const decoder = new TextDecoder();
  for await (const part of res.body) parser.feed(decoder.decode(part as Uint8Array, { stream: true }));
  return calls.filter(Boolean);
}

const sse = (event: string, data: unknown) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

async function turn(req: http.IncomingMessage, res: http.ServerResponse) {
  const parts: Buffer[] = [];
  for await (const p of req) parts.push(p as Buffer);
  const body = JSON.parse(Buffer.concat(parts).toString("utf8")) as { message: string };
  const ctrl = new AbortController();
  res.on("close", () => ctrl.abort());
  res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache" });
  const messages: Msg[] = [
    { role: "system", content: "You are the assistant of a small business." },
    { role: "user", content: body.message },
  ];
  const write = (t: string) => res.write(sse("delta", { text: t }));
  const calls = await streamModel(messages, write, ctrl.signal);
  if (calls.length > 0) {
    messages.push({
      role: "assistant",
      content: null,
      tool_calls: calls.map((c) => ({
        id: c.id,
        type: "function",
        function: { name: c.name, arguments: c.arguments },
      })),
    });
    for (const c of calls) {
      const site = await fetch(toolUrl!, { dispatcher: siteAgent, signal: ctrl.signal });
      messages.push({ role: "tool", tool_call_id: c.id, content: await site.text() });
    }
    await streamModel(messages, write, ctrl.signal);
  }
  res.end(sse("done", { ok: true }));
}

const server = http.createServer((req, res) => {
  if (req.method !== "POST" || req.url !== "/chat") {
    res.writeHead(404).end();
    return;
  }
  turn(req, res).catch((err: Error) => {
    if (!res.headersSent) res.writeHead(500);
    res.end(sse("error", { code: "baseline", message: err.message }));
  });
});
server.keepAliveTimeout = 65_000;
server.listen(0, "127.0.0.1", () => {
  process.send!({ port: (server.address() as AddressInfo).port });
});
const stop = () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
process.on("disconnect", stop);
