import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type ModelClient, modelStatus, resolveModel } from "@/lib/chat/model";
import { type CallOptions, streamCompletion } from "@/lib/chat/model-call";
import { modelClient } from "@/lib/chat/model-http";
import type { Env } from "@/lib/env";
import { type FakeModel, startFakeModel } from "../support/fake-model";

let fake: FakeModel;
let client: ModelClient;

beforeAll(async () => {
  fake = await startFakeModel();
  client = modelClient({ baseURL: fake.url, apiKey: "k" });
});
afterAll(() => fake.close());
beforeEach(() => fake.reset());

function call(over: Partial<CallOptions> = {}) {
  const deltas: string[] = [];
  const p = streamCompletion({
    client,
    model: "fake-small",
    messages: [{ role: "user", content: "hello" }],
    maxTokens: 100,
    timeoutMs: 10_000,
    idleTimeoutMs: 10_000,
    signal: new AbortController().signal,
    onDelta: (t) => deltas.push(t),
    ...over,
  });
  return { p, deltas };
}

describe("streamCompletion", () => {
  it("streams deltas and reports usage, with max_tokens and include_usage sent", async () => {
    fake.enqueue({ type: "text", text: "Hello there, friend", chunkSize: 5 });
    const { p, deltas } = call();
    const r = await p;
    expect(r).toMatchObject({ text: "Hello there, friend", fault: null, toolCalls: [] });
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join("")).toBe("Hello there, friend");
    expect(r.usage?.completionTokens).toBeGreaterThan(0);
    const sent = fake.requests[0]!.body;
    expect(sent).toMatchObject({ model: "fake-small", max_tokens: 100, stream: true });
    expect(sent.stream_options).toEqual({ include_usage: true });
    expect(sent.tools).toBeUndefined();
  });

  it("assembles tool calls streamed in pieces", async () => {
    fake.enqueue({
      type: "tool_calls",
      calls: [
        { id: "a", name: "one", arguments: '{"city":"Barcelona","days":3}' },
        { id: "b", name: "two", arguments: "{}" },
      ],
    });
    const r = await call().p;
    expect(r.toolCalls).toEqual([
      { id: "a", name: "one", arguments: '{"city":"Barcelona","days":3}' },
      { id: "b", name: "two", arguments: "{}" },
    ]);
  });

  it("retries a 429 and a 500 through the SDK, then succeeds", async () => {
    fake.enqueue(
      { type: "http_error", status: 429 },
      { type: "http_error", status: 500 },
      { type: "text", text: "ok" },
    );
    const r = await call().p;
    expect(r).toMatchObject({ text: "ok", fault: null });
    expect(fake.requests).toHaveLength(3);
  });

  it("gives up after the retries: 429 is model_busy, 5xx is model_error", async () => {
    fake.enqueue(...Array.from({ length: 3 }, () => ({ type: "http_error" as const, status: 429 })));
    expect((await call().p).fault).toBe("model_busy");
    expect(fake.requests).toHaveLength(3);
    fake.reset();
    fake.enqueue(...Array.from({ length: 3 }, () => ({ type: "http_error" as const, status: 503 })));
    expect((await call().p).fault).toBe("model_error");
  });

  it("stops a stream that stalls after its headers with idle_timeout", async () => {
    fake.enqueue({ type: "stall" });
    const r = await call({ idleTimeoutMs: 200 }).p;
    expect(r).toMatchObject({ text: "", fault: "idle_timeout", usage: null });
  });

  it("keeps the text of a stream that goes quiet half way", async () => {
    fake.enqueue({ type: "slow_text", text: "abcdefgh", chunkDelayMs: 5000 });
    const r = await call({ idleTimeoutMs: 300 }).p;
    expect(r.fault).toBe("idle_timeout");
    expect(r.text).toBe("abcd");
  });

  it("retries a request whose connection failed before any answer (a keep-alive socket closed meanwhile)", async () => {
    fake.enqueue({ type: "hangup" }, { type: "text", text: "Still here." });
    const r = await call().p;
    expect(r).toMatchObject({ text: "Still here.", fault: null });
    // the request the server hung up on, then the retry that was answered
    expect(fake.requests).toHaveLength(2);
  });

  it("reports a connection cut mid-stream as interrupted, with the text so far", async () => {
    fake.enqueue({ type: "cut", text: "The first part of the answer" });
    const r = await call().p;
    expect(r.fault).toBe("interrupted");
    expect(r.text).toBe("The first part of the answer");
  });

  it("stops when the visitor goes away", async () => {
    fake.enqueue({ type: "stall" });
    const ctrl = new AbortController();
    const { p } = call({ signal: ctrl.signal });
    // Wait until the fake model has the request, then leave.
    while (fake.requests.length === 0) await new Promise((r) => setImmediate(r));
    ctrl.abort();
    expect((await p).fault).toBe("disconnected");
  });

  it("fails a server that sends nothing at all within the first-byte limit, long before the whole-call limit", async () => {
    fake.enqueue({ type: "silent" });
    const r = await call({ timeoutMs: 60_000, idleTimeoutMs: 30_000, firstByteTimeoutMs: 600 }).p;
    expect(r.fault).toBe("first_byte_timeout");
    expect(r.text).toBe("");
  });

  it("lets a server that answered keep its idle limit: the first-byte limit ends with the first bytes", async () => {
    fake.enqueue({ type: "slow_text", text: "abcdef", chunkDelayMs: 400 });
    const r = await call({ timeoutMs: 20_000, idleTimeoutMs: 5000, firstByteTimeoutMs: 300 }).p;
    expect(r).toMatchObject({ fault: null, text: "abcdef" });
  });

  it("enforces the total time of a call even while chunks keep coming", async () => {
    fake.enqueue({ type: "slow_text", text: "x".repeat(400), chunkDelayMs: 50 });
    const r = await call({ timeoutMs: 1500, idleTimeoutMs: 10_000 }).p;
    expect(r.fault).toBe("model_timeout");
    expect(r.text.length).toBeGreaterThan(0);
  });
});

describe("model configuration", () => {
  const base = { OPENAI_API_KEY: undefined, OPENAI_BASE_URL: undefined, MICHI_MODELS: [] } as unknown as Env;

  it("is not configured without a provider, nor without allowed models", () => {
    // A newcomer with nothing set is told every variable at once, and that a restart reads them.
    expect(modelStatus(base)).toMatchObject({
      configured: false,
      missing: [expect.stringMatching(/^OPENAI_BASE_URL/), expect.stringMatching(/^MICHI_MODELS/)],
      reason: expect.stringMatching(/OPENAI_BASE_URL.*OPENAI_API_KEY.* and MICHI_MODELS.*restart/),
    });
    expect(modelStatus({ ...base, OPENAI_BASE_URL: "http://x/v1" })).toMatchObject({
      configured: false,
      reason: expect.stringMatching(/MICHI_MODELS/),
    });
    expect(modelStatus({ ...base, OPENAI_API_KEY: "k", MICHI_MODELS: ["a", "b"] })).toEqual({
      configured: true,
      models: ["a", "b"],
      defaultModel: "a",
    });
  });

  it("uses the tenant's model only while the operator allows it", () => {
    expect(resolveModel({ model: "b" }, ["a", "b"])).toBe("b");
    expect(resolveModel({ model: "retired" }, ["a", "b"])).toBe("a");
    expect(resolveModel({}, ["a"])).toBe("a");
  });
});
