import { readFileSync } from "node:fs";
import { createParser } from "eventsource-parser";
import { Agent, fetch } from "undici";

// The framework floor's turn: the same turn as the bare baseline (two streamed completions from the model
// server, one https fetch of the tenant's site, SSE back), written as a route handler (a standard Request in,
// a standard Response out) with no guard, database, limits, projection or logging. floor-server.ts serves it
// the way the production server serves the chat. Its settings come from the floor server, never from the
// platform's environment: nothing of it ships in the product.

/** Where the floor's turn talks to: the bench world's model server and the tenant site's feed. */
export type FloorSettings = { modelUrl: string; model: string; caFile: string; toolUrl: string };

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
type Agents = { model: Agent; site: Agent };

let shared: Agents | undefined;

function agents(f: FloorSettings): Agents {
  shared ??= {
    model: new Agent({ keepAliveTimeout: 30_000 }),
    site: new Agent({ keepAliveTimeout: 30_000, connect: { ca: readFileSync(f.caFile, "utf8") } }),
  };
  return shared;
}

async function streamModel(
  f: FloorSettings,
  messages: Msg[],
  onDelta: (t: string) => void,
  signal: AbortSignal,
) {
  const res = await fetch(`${f.modelUrl}/chat/completions`, {
    method: "POST",
    dispatcher: agents(f).model,
    signal,
    headers: { "content-type": "application/json", authorization: "Bearer bench" },
    body: JSON.stringify({
      model: f.model,
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
        const c = calls[tc.index] as Call;
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

/** The floor turn as a route handler's Response. */
export async function floorTurn(req: Request, f: FloorSettings): Promise<Response> {
  const body = (await req.json()) as { message?: string };
  const enc = new TextEncoder();
  const ctrl = new AbortController();
  const stream = new ReadableStream<Uint8Array>({
    async start(controller) {
      const write = (s: string) => controller.enqueue(enc.encode(s));
      try {
        const messages: Msg[] = [
          { role: "system", content: "You are the assistant of a small business." },
          { role: "user", content: String(body.message ?? "") },
        ];
        const onDelta = (t: string) => write(sse("delta", { text: t }));
        const calls = await streamModel(f, messages, onDelta, ctrl.signal);
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
            const site = await fetch(f.toolUrl, { dispatcher: agents(f).site, signal: ctrl.signal });
            messages.push({ role: "tool", tool_call_id: c.id, content: await site.text() });
          }
          await streamModel(f, messages, onDelta, ctrl.signal);
        }
        write(sse("done", { ok: true }));
      } catch (err) {
        write(sse("error", { code: "floor", message: (err as Error).message }));
      }
      controller.close();
    },
    cancel() {
      ctrl.abort();
    },
  });
  return new Response(stream, {
    headers: { "Content-Type": "text/event-stream; charset=utf-8", "Cache-Control": "no-cache" },
  });
}
