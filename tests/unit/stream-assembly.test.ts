import { describe, expect, it } from "vitest";
import { StreamAssembler, streamEnd } from "@/lib/chat/stream-assembly";
import { DIALECTS, frames } from "../support/dialects";
import { gemini } from "../support/dialects/gemini";
import { llamaServer } from "../support/dialects/llama-server";
import { localai } from "../support/dialects/localai";
import { ollama } from "../support/dialects/ollama";

// Replays recorded chunk sequences (tests/support/dialects, each citing its source) through the assembler.

const meta = { id: "chatcmpl-1", created: 1, model: "m" };
const usage = { prompt: 40, completion: 9 };
const two = [
  { id: "call_a", name: "get_business_info", arguments: '{"topic":"hours"}' },
  { id: "call_b", name: "get_business_info", arguments: '{"topic":"address"}' },
];

/** Feeds raw SSE frames the way model-call.ts does: data payloads, [DONE], and llama.cpp's error field. */
function replay(raw: string[]) {
  const asm = new StreamAssembler();
  let shown = "";
  for (const f of raw) {
    if (f.startsWith("data: ")) {
      const payload = f.slice(6);
      if (payload === "[DONE]") asm.done();
      else shown += asm.push(JSON.parse(payload));
    } else if (f.startsWith("error: ")) {
      asm.fail(JSON.parse(f.slice(7)).error);
    }
  }
  return { a: asm.result(), shown };
}

describe("every dialect's recorded sequences", () => {
  for (const d of DIALECTS) {
    it(`${d.name}: text, one call, two parallel calls, usage`, () => {
      const text = replay(frames(d, meta, { answer: "We open at nine." }, "stop", usage, true));
      expect(text.a.text).toBe("We open at nine.");
      expect(text.shown).toBe("We open at nine.");
      expect(streamEnd(text.a)).toBeNull();
      expect(text.a.usage).toEqual({ promptTokens: 40, completionTokens: 9 });

      const one = replay(frames(d, meta, { calls: [two[0]!] }, "stop", usage, true));
      expect(one.a.toolCalls.map((c) => [c.id, c.name, JSON.parse(c.arguments)])).toEqual([
        ["call_a", "get_business_info", { topic: "hours" }],
      ]);

      const both = replay(frames(d, meta, { calls: two }, "stop", usage, true));
      expect(both.a.toolCalls.map((c) => [c.id, c.name, c.arguments])).toEqual(
        two.map((c) => [c.id, c.name, c.arguments]),
      );
      expect(streamEnd(both.a)).toBeNull();
    });

    it(`${d.name}: cut, filtered, too long and failing streams never end clean`, () => {
      const body = { answer: "We are open from nine until five." };
      expect(streamEnd(replay(frames(d, meta, body, "cut", usage, true)).a)).toBe("interrupted");
      expect(streamEnd(replay(frames(d, meta, body, "length", usage, true)).a)).toBe("length");
      expect(streamEnd(replay(frames(d, meta, body, "content_filter", usage, true)).a)).toBe(
        "content_filter",
      );
      const failed = replay(frames(d, meta, body, "stream_error", usage, true)).a;
      expect(streamEnd(failed)).toBe("stream_error");
      expect(failed.error?.message).toMatch(/out of memory/);
    });
  }
});

describe("tool-call keying", () => {
  it("Ollama 0.20: two calls at index 0 with distinct ids stay two calls (no appended names)", () => {
    const { a } = replay(frames(ollama, meta, { calls: two }, "stop", usage, true));
    expect(a.toolCalls.map((c) => c.name)).toEqual(["get_business_info", "get_business_info"]);
  });

  it("Gemini: calls without index take the next position and keep the round's thought signature", () => {
    const { a } = replay(frames(gemini, meta, { calls: two }, "stop", usage, true));
    expect(a.toolCalls.map((c) => c.extraContent)).toEqual([
      { google: { thought_signature: "sig-call_a" } },
      undefined,
    ]);
  });

  it("LocalAI: one call repeated at a second index with the same id is one call", () => {
    const { a } = replay(frames(localai, meta, { calls: [two[0]!] }, "stop", usage, true));
    expect(a.toolCalls).toHaveLength(1);
    expect(JSON.parse(a.toolCalls[0]!.arguments)).toEqual({ topic: "hours" });
  });

  it("a name sent again equal to the current one is set, not appended; object arguments are serialised", () => {
    const asm = new StreamAssembler();
    asm.push({ choices: [{ delta: { tool_calls: [{ index: 0, id: "x", function: { name: "lookup" } }] } }] });
    asm.push({
      choices: [
        { delta: { tool_calls: [{ index: 0, function: { name: "lookup", arguments: { sku: "A1" } } }] } },
      ],
    });
    asm.done();
    expect(asm.result().toolCalls).toEqual([{ id: "x", name: "lookup", arguments: '{"sku":"A1"}' }]);
  });

  it("a call without id or index continues the one being built", () => {
    const asm = new StreamAssembler();
    asm.push({
      choices: [{ delta: { tool_calls: [{ id: "g1", function: { name: "f", arguments: '{"a":' } }] } }],
    });
    asm.push({ choices: [{ delta: { tool_calls: [{ function: { arguments: "1}" } }] } }] });
    expect(asm.result().toolCalls).toEqual([{ id: "g1", name: "f", arguments: '{"a":1}' }]);
  });
});

describe("thinking and faults", () => {
  it("keeps reasoning apart from the answer and out of what the visitor is shown", () => {
    const d = DIALECTS.find((x) => x.name === "deepseek")!;
    const { a, shown } = replay(
      frames(d, meta, { answer: "Hi.", reasoning: "Thinking hard." }, "stop", usage, true),
    );
    expect(a.reasoning).toBe("Thinking hard.");
    expect(a.text).toBe("Hi.");
    expect(shown).toBe("Hi.");
  });

  it("llama.cpp's error field is a fault even though the SDK would ignore it", () => {
    const { a } = replay(
      frames(llamaServer, meta, { answer: "Partial answer here" }, "stream_error", usage, true),
    );
    expect(a.text.length).toBeGreaterThan(0);
    expect(streamEnd(a)).toBe("stream_error");
  });

  it("a stream that just stops (no finish reason, no [DONE]) is interrupted; [DONE] alone is fine", () => {
    const asm = new StreamAssembler();
    asm.push({ choices: [{ delta: { content: "We are" } }] });
    expect(streamEnd(asm.result())).toBe("interrupted");
    asm.done();
    expect(streamEnd(asm.result())).toBeNull();
  });

  it("nothing generated means nothing to bill", () => {
    const asm = new StreamAssembler();
    asm.push({ choices: [{ delta: { role: "assistant", content: "" } }] });
    expect(asm.result().generated).toBe(false);
  });
});

describe("a server that ignores stream: true", () => {
  it("answers with one whole completion, which is read like a stream", async () => {
    const { createServer } = await import("node:http");
    const { modelClient } = await import("@/lib/chat/model-http");
    const { streamCompletion } = await import("@/lib/chat/model-call");
    const completion = {
      id: "c1",
      object: "chat.completion",
      choices: [
        {
          index: 0,
          finish_reason: "tool_calls",
          message: {
            role: "assistant",
            content: null,
            tool_calls: [{ id: "t1", type: "function", function: { name: "lookup", arguments: "{}" } }],
          },
        },
      ],
      usage: { prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 },
    };
    const server = createServer((req, res) => {
      req.resume();
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(completion));
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const { port } = server.address() as { port: number };
    const res = await streamCompletion({
      client: modelClient({ baseURL: `http://127.0.0.1:${port}/v1`, apiKey: "k" }),
      model: "m",
      messages: [{ role: "user", content: "hi" }],
      maxTokens: 50,
      timeoutMs: 5000,
      idleTimeoutMs: 5000,
      signal: new AbortController().signal,
      onDelta: () => {},
    });
    expect(res.fault).toBeNull();
    expect(res.toolCalls).toEqual([{ id: "t1", name: "lookup", arguments: "{}" }]);
    expect(res.usage).toEqual({ promptTokens: 12, completionTokens: 3 });
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });
});
