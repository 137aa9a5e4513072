import "server-only";
import { readFileSync } from "node:fs";
import { createParser } from "eventsource-parser";
import { Agent, fetch } from "undici";
import type { Env } from "../env";

// The benchmark's framework floor (issue 17): the same turn as the bench's bare Node baseline (two streamed
// completions from the model server, one https fetch of the tenant's site, SSE back), run inside this very
// production server as an ordinary route handler, with no guard, database, limits, projection or logging. The
// server hands it its requests the way it hands the chat's (scripts/direct-routes.mjs), so what it costs above
// the bare baseline is the server's own request handling and web streams; what a real turn costs above it is
// the platform's work. The route answers 404 unless MICHI_BENCH_FLOOR_URL is set, which only the
// benchmark does (bench/lib/servers.ts); it reads nothing and writes nothing of any tenant.

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

const g = globalThis as unknown as { __michiFloorAgents?: Agents };

function agents(e: Env): Agents {
  g.__michiFloorAgents ??= {
    model: new Agent({ keepAliveTimeout: 30_000 }),
    site: new Agent({
      keepAliveTimeout: 30_000,
      connect: e.MICHI_FETCH_EXTRA_CA ? { ca: readFileSync(e.MICHI_FETCH_EXTRA_CA, "utf8") } : {},
    }),
  };
  return g.__michiFloorAgents;
}

async function streamModel(e: Env, messages: Msg[], onDelta: (t: string) => void, signal: AbortSignal) {
  const res = await fetch(`${e.OPENAI_BASE_URL}/chat/completions`, {
    method: "POST",
    dispatcher: agents(e).model,
    signal,
    headers: { "content-type": "application/json", authorization: `Bearer ${e.OPENAI_API_KEY ?? ""}` },
    body: JSON.stringify({
      model: e.MICHI_MODELS[0] ?? "model",
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

/** The floor turn as a Response, or null when the benchmark did not switch the floor on. */
export async function floorTurn(req: Request, e: Env): Promise<Response | null> {
  const toolUrl = e.MICHI_BENCH_FLOOR_URL;
  if (!toolUrl || !e.OPENAI_BASE_URL) return null;
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
        const calls = await streamModel(e, messages, onDelta, ctrl.signal);
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
            const site = await fetch(toolUrl, { dispatcher: agents(e).site, signal: ctrl.signal });
            messages.push({ role: "tool", tool_call_id: c.id, content: await site.text() });
          }
          await streamModel(e, messages, onDelta, ctrl.signal);
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
