import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type EnabledPack, type LoopDeps, type RunTool, runLoop, type ToolRunRecord } from "@/lib/chat/loop";
import { type ModelClient, modelClient } from "@/lib/chat/model-http";
import { createLogger } from "@/lib/log";
import type { ToolPack } from "@/lib/tools/contract";
import type { ChatEvent } from "@/shared/chat-events";
import { type FakeModel, startFakeModel } from "../support/fake-model";

// The loop with a stand-in tool runner: what the loop itself promises (rounds, chips, concurrency, the last
// round without tools). Pack faults through the real runner are in tests/integration/chat-faults.test.ts.

let fake: FakeModel;
let client: ModelClient;
const log = createLogger(undefined, "silent");

beforeAll(async () => {
  fake = await startFakeModel();
  client = modelClient({ baseURL: fake.url, apiKey: "k" });
});
afterAll(() => fake.close());
beforeEach(() => fake.reset());

function pack(name: string, label: string): EnabledPack {
  const p: ToolPack = {
    id: name,
    label,
    labels: { es: `${label} (es)` },
    definition: {
      type: "function",
      function: { name, description: `${name} tool`, parameters: { type: "object", properties: {} } },
    },
    configFields: [],
    run: async () => ({}),
  };
  return { pack: p, config: {}, definition: p.definition };
}

const record = (callId: string, packId: string, result: unknown): ToolRunRecord => {
  const text = JSON.stringify(result);
  return {
    callId,
    packId,
    label: packId,
    args: {},
    result: text,
    resultChars: text.length,
    durationMs: 1,
    outcome: "ok",
  };
};

function setup(runTool: RunTool, over: Partial<LoopDeps> = {}) {
  const enabled = [pack("get_hours", "Checking hours"), pack("get_menu", "Reading the menu")];
  const deps: LoopDeps = {
    client,
    model: "fake-small",
    enabled,
    tools: enabled.map((e) => e.definition),
    runTool,
    chipLabel: (p, lang) => (lang && p.labels?.[lang]) || p.label,
    maxRounds: 4,
    maxTokens: 200,
    timeoutMs: 10_000,
    idleTimeoutMs: 5_000,
    toolTimeoutMs: 8_000,
    toolMaxChars: 4_000,
    ...over,
  };
  const events: ChatEvent[] = [];
  const ctrl = new AbortController();
  const run = (text: string) =>
    runLoop(
      deps,
      { tenantId: "t1", conversationId: "c1", lang: "es", signal: ctrl.signal, log },
      [
        { role: "system", content: "sys" },
        { role: "user", content: text },
      ],
      (e) => events.push(e),
    );
  return { run, events, ctrl };
}

describe("runLoop", () => {
  it("runs a tool round, feeds the result back and streams the answer with chips", async () => {
    fake.setRules([
      {
        match: "hours",
        steps: [
          { type: "tool_calls", calls: [{ id: "h1", name: "get_hours", arguments: "{}" }] },
          { type: "text", text: "We close at {{tool.closes}}." },
        ],
      },
    ]);
    const seen: string[] = [];
    const { run, events } = setup(async ({ call, ctx }) => {
      seen.push(`${call.name}:${ctx.tenantId}:${ctx.lang}`);
      return record(call.id, "get_hours", { closes: "18:00" });
    });
    const r = await run("What are your hours?");
    expect(r).toMatchObject({ text: "We close at 18:00.", status: "complete", reason: null, rounds: 2 });
    expect(seen).toEqual(["get_hours:t1:es"]);
    expect(events.filter((e) => e.type === "chip").map((e) => e.data)).toEqual([
      { callId: "h1", label: "Checking hours (es)", state: "start" },
      { callId: "h1", label: "Checking hours (es)", state: "done" },
    ]);
    const second = fake.requests[1]!.body.messages;
    expect(second.at(-1)).toMatchObject({ role: "tool", tool_call_id: "h1", content: '{"closes":"18:00"}' });
    expect(second.at(-2)).toMatchObject({ role: "assistant", tool_calls: [{ id: "h1" }] });
    expect(r.usage.promptTokens).toBeGreaterThan(0);
    expect(r.usageEstimated).toBe(false);
  });

  it("runs the calls of one round concurrently", async () => {
    fake.setRules([
      {
        match: "both",
        steps: [
          {
            type: "tool_calls",
            calls: [
              { id: "a", name: "get_hours", arguments: "{}" },
              { id: "b", name: "get_menu", arguments: "{}" },
            ],
          },
          { type: "text", text: "done" },
        ],
      },
    ]);
    // The first call cannot finish until the second has started: run one after the other, this deadlocks
    // and the guard below fails the test instead of hanging.
    let secondStarted!: () => void;
    const started = new Promise<void>((r) => {
      secondStarted = r;
    });
    const order: string[] = [];
    const { run } = setup(async ({ call }) => {
      order.push(`start ${call.id}`);
      if (call.id === "a") {
        const deadlock = new Promise<"deadlock">((r) => setTimeout(() => r("deadlock"), 5000).unref());
        if ((await Promise.race([started.then(() => "ok" as const), deadlock])) === "deadlock") {
          order.push("a gave up");
        }
      } else secondStarted();
      order.push(`end ${call.id}`);
      return record(call.id, call.name, { ok: true });
    });
    const r = await run("both please");
    expect(order).toEqual(["start a", "start b", "end b", "end a"]);
    expect(
      fake.requests[1]!.body.messages.filter((m) => m.role === "tool").map((m) => m.tool_call_id),
    ).toEqual(["a", "b"]);
    expect(r.status).toBe("complete");
  });

  it("offers no tools in the last allowed round, so the visitor still gets an answer", async () => {
    const loop = { type: "tool_calls" as const, calls: [{ name: "get_hours", arguments: "{}" }] };
    fake.setRules([{ match: "loop", steps: [loop, loop, { type: "text", text: "Here is what I found." }] }]);
    const { run } = setup(async ({ call }) => record(call.id, "get_hours", {}), { maxRounds: 3 });
    const r = await run("loop forever");
    expect(fake.requests.map((q) => (q.body.tools ? "tools" : "none"))).toEqual(["tools", "tools", "none"]);
    expect(r).toMatchObject({ status: "complete", text: "Here is what I found.", rounds: 3 });
  });

  it("stops at the round cap even when the model keeps asking for tools", async () => {
    fake.setRules([
      { match: "loop", steps: [{ type: "tool_calls", calls: [{ name: "get_hours", arguments: "{}" }] }] },
    ]);
    let runs = 0;
    const { run } = setup(
      async ({ call }) => {
        runs++;
        return record(call.id, "get_hours", {});
      },
      { maxRounds: 2 },
    );
    const r = await run("loop forever");
    expect(fake.requests).toHaveLength(2);
    expect(runs).toBe(1);
    expect(r).toMatchObject({ status: "failed", reason: "round_cap", text: "" });
  });

  it("does not ask the model again once the visitor has gone during a tool run", async () => {
    fake.setRules([
      {
        match: "leave",
        steps: [
          { type: "tool_calls", calls: [{ name: "get_hours", arguments: "{}" }] },
          { type: "text", text: "never sent" },
        ],
      },
    ]);
    const env = setup(async ({ call }) => {
      env.ctrl.abort();
      return record(call.id, "get_hours", {});
    });
    const r = await env.run("I will leave");
    expect(fake.requests).toHaveLength(1);
    expect(r).toMatchObject({ status: "failed", reason: "disconnected" });
    expect(r.runs).toHaveLength(1);
  });

  it("shows no chip for a tool name no pack owns", async () => {
    fake.setRules([
      {
        match: "ghost",
        steps: [
          { type: "tool_calls", calls: [{ id: "g", name: "ghost_tool", arguments: "{}" }] },
          { type: "text", text: "ok" },
        ],
      },
    ]);
    const { run, events } = setup(async ({ call }) => ({
      ...record(call.id, "", { error: "unknown" }),
      outcome: "unknown_tool",
    }));
    await run("ghost");
    expect(events.some((e) => e.type === "chip")).toBe(false);
  });

  it("estimates usage for a call cut short before the provider reported it", async () => {
    fake.enqueue({ type: "cut", text: "partial" });
    const { run } = setup(async ({ call }) => record(call.id, "x", {}));
    const r = await run("hello");
    expect(r).toMatchObject({
      status: "partial",
      reason: "interrupted",
      text: "partial",
      usageEstimated: true,
    });
    expect(r.usage.promptTokens).toBeGreaterThan(0);
    expect(r.usage.completionTokens).toBeGreaterThan(0);
  });
});
