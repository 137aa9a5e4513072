import OpenAI from "openai";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type FakeModel, fakeModelControl, startFakeModel } from "../support/fake-model";

let fake: FakeModel;
let client: OpenAI;

beforeAll(async () => {
  fake = await startFakeModel();
  client = new OpenAI({ baseURL: fake.url, apiKey: "test", maxRetries: 0 });
});
afterAll(() => fake.close());
beforeEach(() => fake.reset());

async function streamText(messages: OpenAI.ChatCompletionMessageParam[]) {
  const stream = await client.chat.completions.create({
    model: "m",
    messages,
    stream: true,
    stream_options: { include_usage: true },
  });
  let text = "";
  let usage: OpenAI.CompletionUsage | undefined;
  const calls: { id?: string; name: string; arguments: string }[] = [];
  for await (const chunk of stream) {
    if (chunk.usage) usage = chunk.usage;
    const d = chunk.choices[0]?.delta;
    if (d?.content) text += d.content;
    for (const tc of d?.tool_calls ?? []) {
      calls[tc.index] ??= { name: "", arguments: "" };
      const c = calls[tc.index]!;
      if (tc.id) c.id = tc.id;
      if (tc.function?.name) c.name += tc.function.name;
      if (tc.function?.arguments) c.arguments += tc.function.arguments;
    }
  }
  return { text, usage, calls };
}

describe("fake model", () => {
  it("echoes the user by default, streaming with usage", async () => {
    const r = await streamText([{ role: "user", content: "hello there" }]);
    expect(r.text).toBe("You said: hello there");
    expect(r.usage?.completion_tokens).toBeGreaterThan(0);
    expect(r.usage?.total_tokens).toBe((r.usage?.prompt_tokens ?? 0) + (r.usage?.completion_tokens ?? 0));
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0]?.headers.authorization).toBe("Bearer test");
  });

  it("answers non-streaming requests with a completion and usage", async () => {
    fake.setRules([{ match: "ping", steps: [{ type: "text", text: "pong" }] }]);
    const r = await client.chat.completions.create({
      model: "m",
      messages: [{ role: "user", content: "PING" }],
    });
    expect(r.choices[0]?.message.content).toBe("pong");
    expect(r.usage?.prompt_tokens).toBeGreaterThan(0);
  });

  it("plays a rule's steps by round and fills tool templates", async () => {
    fake.setRules([
      {
        match: "hours",
        steps: [
          { type: "tool_calls", calls: [{ id: "c1", name: "opening_hours", arguments: '{"day":"monday"}' }] },
          { type: "text", text: "Open {{tool.hours.open}} ({{tool}})" },
        ],
      },
    ]);
    const first = await streamText([{ role: "user", content: "What are your hours?" }]);
    expect(first.text).toBe("");
    expect(first.calls).toEqual([{ id: "c1", name: "opening_hours", arguments: '{"day":"monday"}' }]);
    const toolJson = '{"hours":{"open":"9:00"}}';
    const second = await streamText([
      { role: "user", content: "What are your hours?" },
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "c1", type: "function", function: { name: "opening_hours", arguments: "{}" } }],
      },
      { role: "tool", tool_call_id: "c1", content: toolJson },
    ]);
    expect(second.text).toBe(`Open 9:00 (${toolJson})`);
  });

  it("plays queued steps once, before rules", async () => {
    fake.setRules([{ match: "", steps: [{ type: "text", text: "from rule" }] }]);
    fake.enqueue({ type: "http_error", status: 429 }, { type: "text", text: "queued" });
    await expect(streamText([{ role: "user", content: "x" }])).rejects.toMatchObject({ status: 429 });
    expect((await streamText([{ role: "user", content: "x" }])).text).toBe("queued");
    expect((await streamText([{ role: "user", content: "x" }])).text).toBe("from rule");
  });

  it("cuts the connection mid-stream", async () => {
    fake.enqueue({ type: "cut", text: "partial answer that never ends" });
    let seen = "";
    const run = async () => {
      const s = await client.chat.completions.create({
        model: "m",
        messages: [{ role: "user", content: "x" }],
        stream: true,
      });
      for await (const c of s) seen += c.choices[0]?.delta.content ?? "";
    };
    await expect(run()).rejects.toThrow();
    expect(seen).toBe("partial answer that never ends");
  });

  it("stalls after headers until the client gives up", async () => {
    fake.enqueue({ type: "stall" });
    const ctrl = new AbortController();
    const s = await client.chat.completions.create(
      { model: "m", messages: [{ role: "user", content: "x" }], stream: true },
      { signal: ctrl.signal },
    );
    const it = s[Symbol.asyncIterator]();
    let settled = false;
    const next = it.next().finally(() => {
      settled = true;
    });
    // Headers arrived (create() resolved) but no chunk: the read stays pending until the client aborts.
    await new Promise((r) => setImmediate(r));
    expect(settled).toBe(false);
    ctrl.abort();
    expect(await next).toEqual({ done: true, value: undefined });
  });

  it("can be driven over HTTP from another process", async () => {
    const control = fakeModelControl(fake.url);
    await control.setRules([
      { match: "remote", steps: [{ type: "slow_text", text: "abcdef", chunkDelayMs: 1 }] },
    ]);
    expect((await streamText([{ role: "user", content: "remote please" }])).text).toBe("abcdef");
    const seen = await control.requests();
    expect(seen.at(-1)?.body.messages.at(-1)?.content).toBe("remote please");
    await control.reset();
    expect(fake.requests).toHaveLength(0);
  });

  it("speaks a provider's dialect when told to over HTTP, refusals included", async () => {
    const control = fakeModelControl(fake.url);
    await control.dialect("mistral");
    // Mistral refuses stream_options with 422 extra_forbidden (tests/support/dialects/mistral.ts).
    await expect(streamText([{ role: "user", content: "hi" }])).rejects.toMatchObject({ status: 422 });
    await control.dialect("ollama");
    await control.setRules([
      {
        match: "two",
        steps: [
          {
            type: "tool_calls",
            calls: [
              { id: "a", name: "f", arguments: "{}" },
              { id: "b", name: "f", arguments: "{}" },
            ],
          },
        ],
      },
    ]);
    const res = await fetch(`${fake.url}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        model: "m",
        stream: true,
        tools: [{}],
        messages: [{ role: "user", content: "two calls" }],
      }),
    });
    const body = await res.text();
    // Ollama 0.20 numbers every call 0.
    expect([...body.matchAll(/"index":0,"id":"(a|b)"/g)].map((m) => m[1])).toEqual(["a", "b"]);
    await expect(control.dialect("nonesuch")).rejects.toThrow(/400/);
    await control.dialect(null);
    expect((await streamText([{ role: "user", content: "plain" }])).text).toBe("You said: plain");
  });
});
