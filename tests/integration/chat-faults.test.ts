import { sql } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { platformPacks } from "@/lib/chat/packs";
import type { DbHandle } from "@/lib/db/client";
import { env } from "@/lib/env";
import type { ToolPack } from "@/lib/tools/contract";
import type { EnabledPack } from "@/lib/tools/runtime";
import { handleChat } from "@/widget/server/chat";
import type { WidgetDeps } from "@/widget/server/deps";
import { type ChatWorld, readEvents, type SseEvent, startChatWorld, textOf } from "../support/chat-world";
import type { Step } from "../support/fake-model";

// Each fault of the issue, end to end through the endpoint with the fake model and test packs handed in as
// dependencies (ALL_PACKS is untouched). Packs run inside the real wrapper (runToolCall).

let w: ChatWorld;

beforeAll(async () => {
  w = await startChatWorld({ MICHI_MODEL_IDLE_TIMEOUT_MS: "600", MICHI_TOOL_TIMEOUT_MS: "300" });
});
afterAll(() => w?.close());
beforeEach(() => w.fake.reset());

function testPack(
  id: string,
  run: ToolPack["run"],
  parameters?: ToolPack["definition"]["function"]["parameters"],
): ToolPack {
  return {
    id,
    label: `Running ${id}`,
    definition: {
      type: "function",
      function: {
        name: id,
        description: `${id} (test)`,
        parameters: parameters ?? { type: "object", properties: {} },
      },
    },
    configFields: [],
    run,
  };
}

const stock = testPack("lookup_stock", async (_c, args) => ({ sku: args.sku, inStock: 3 }), {
  type: "object",
  properties: { sku: { type: "string", pattern: "^[A-Z0-9-]+$" } },
  required: ["sku"],
  additionalProperties: false,
});

function depsWith(packs: ToolPack[], over: Partial<WidgetDeps> = {}): WidgetDeps {
  const enabled: EnabledPack[] = packs.map((pack) => ({ pack, config: {}, definition: pack.definition }));
  return {
    db: async () => w.db,
    env,
    packs: { ...platformPacks, loadEnabled: async () => enabled },
    ...over,
  };
}

/** One turn for a fresh tenant and visitor; `steps` is the model's script for this message. */
async function turn(steps: Step[], packs: ToolPack[] = [stock], over: Partial<WidgetDeps> = {}) {
  const tenant = await w.tenant();
  const token = await w.token(tenant.widgetKey);
  const message = `question ${Math.random().toString(36).slice(2)}`;
  if (steps.length > 0) w.fake.setRules([{ match: message, steps }]);
  const res = await handleChat(
    w.chatRequest(tenant.widgetKey, { message }, { token }),
    tenant.widgetKey,
    depsWith(packs, over),
  );
  const events = res.status === 200 ? await readEvents(res) : [];
  return { res, events, tenant, rows: () => w.rows(tenant.id) };
}

const toolCall = (name: string, args = "{}", id = `call_${name}`): Step => ({
  type: "tool_calls",
  calls: [{ id, name, arguments: args }],
});
const echoTool: Step = { type: "text", text: "Tool said: {{tool}}" };
const toolMessages = (i: number) => w.fake.requests[i]!.body.messages.filter((m) => m.role === "tool");
const last = (events: SseEvent[]) => events.at(-1)!;

describe("model faults", () => {
  it("429 beyond the SDK's retries: a visitor message, and the turn stored as failed", async () => {
    w.fake.enqueue(...Array.from({ length: 3 }, (): Step => ({ type: "http_error", status: 429 })));
    const t = await turn([]);
    expect(w.fake.requests).toHaveLength(3);
    expect(last(t.events)).toMatchObject({
      event: "error",
      data: { code: "model_busy", message: expect.stringMatching(/busy/) },
    });
    const rows = await t.rows();
    expect(rows.messages.map((m) => [m.role, m.status, m.reason])).toEqual([
      ["user", "complete", null],
      ["assistant", "failed", "model_busy"],
    ]);
  });

  it("a 5xx is retried by the SDK and the visitor never notices", async () => {
    w.fake.enqueue({ type: "http_error", status: 502 }, { type: "text", text: "Recovered." });
    const t = await turn([]);
    expect(textOf(t.events)).toBe("Recovered.");
    expect(last(t.events).event).toBe("done");
  });

  it("5xx beyond the retries: model_error", async () => {
    w.fake.enqueue(...Array.from({ length: 3 }, (): Step => ({ type: "http_error", status: 500 })));
    const t = await turn([]);
    expect(last(t.events)).toMatchObject({ event: "error", data: { code: "model_error" } });
    expect((await t.rows()).messages[1]).toMatchObject({ status: "failed", reason: "model_error" });
  });

  it("a stall after the headers ends with the idle timeout", async () => {
    const t = await turn([{ type: "stall" }]);
    expect(last(t.events)).toMatchObject({ event: "error", data: { code: "idle_timeout" } });
    expect((await t.rows()).messages[1]).toMatchObject({
      status: "failed",
      reason: "idle_timeout",
      content: "",
    });
  });

  it("a connection cut mid-stream keeps the partial answer, with its reason and estimated usage", async () => {
    const t = await turn([{ type: "cut", text: "We are open from nine until" }]);
    expect(textOf(t.events)).toBe("We are open from nine until");
    expect(last(t.events)).toMatchObject({ event: "error", data: { code: "interrupted" } });
    const rows = await t.rows();
    expect(rows.messages[1]).toMatchObject({
      status: "partial",
      reason: "interrupted",
      content: "We are open from nine until",
    });
    expect(last(t.events).data.messageId).toBe(rows.messages[1]!.id);
    expect(rows.usage[0]!.promptTokens).toBeGreaterThan(0);
  });
});

describe("tool faults", () => {
  it("malformed tool-call JSON goes back to the model as invalid_tool_arguments", async () => {
    const t = await turn([toolCall("lookup_stock", '{"sku": "A1"'), echoTool]);
    const sent = toolMessages(1);
    expect(JSON.parse(String(sent[0]!.content))).toMatchObject({ error: "invalid_tool_arguments" });
    expect(t.events.filter((e) => e.event === "chip").map((e) => e.data.state)).toEqual(["start", "error"]);
    const rows = await t.rows();
    expect(rows.toolRuns[0]).toMatchObject({ outcome: "invalid_args", args: null, result: sent[0]!.content });
    expect(last(t.events).event).toBe("done");
  });

  it("schema-invalid arguments go back with what was wrong", async () => {
    await turn([toolCall("lookup_stock", '{"color":"red"}'), echoTool]);
    const result = JSON.parse(String(toolMessages(1)[0]!.content));
    expect(result.error).toBe("invalid_tool_arguments");
    expect(JSON.stringify(result.details)).toMatch(/sku/);
  });

  it("an unknown tool name is answered as such, with no chip", async () => {
    const t = await turn([toolCall("delete_everything"), echoTool]);
    expect(JSON.parse(String(toolMessages(1)[0]!.content))).toMatchObject({ error: "unknown_tool" });
    expect(t.events.some((e) => e.event === "chip")).toBe(false);
    expect((await t.rows()).toolRuns[0]).toMatchObject({
      packId: "delete_everything",
      outcome: "unknown_tool",
    });
  });

  it("a pack that throws becomes an error result; the answer still comes", async () => {
    const boom = testPack("boom", async () => {
      throw new Error("kaboom: secret internals");
    });
    const t = await turn(
      [toolCall("boom"), { type: "text", text: "Sorry, I could not check that." }],
      [boom],
    );
    const content = String(toolMessages(1)[0]!.content);
    expect(content).toMatch(/failed unexpectedly/);
    expect(content).not.toMatch(/kaboom/);
    expect(t.events.filter((e) => e.event === "chip").map((e) => e.data.state)).toEqual(["start", "error"]);
    expect(last(t.events).event).toBe("done");
    expect((await t.rows()).toolRuns[0]).toMatchObject({ packId: "boom", outcome: "error" });
  });

  it("a pack that hangs times out and the loop moves on", async () => {
    const stuck = testPack("stuck", () => new Promise(() => {}));
    const t = await turn([toolCall("stuck"), { type: "text", text: "It took too long." }], [stuck]);
    expect(String(toolMessages(1)[0]!.content)).toMatch(/did not answer/);
    expect((await t.rows()).toolRuns[0]).toMatchObject({ outcome: "timeout" });
    expect(textOf(t.events)).toBe("It took too long.");
  });

  it("a pack that returns 1 MB is capped before the model sees it, and stored as capped", async () => {
    const huge = testPack("huge", async () => "x".repeat(1024 * 1024));
    const t = await turn([toolCall("huge"), { type: "text", text: "That was a lot." }], [huge]);
    const content = String(toolMessages(1)[0]!.content);
    const max = env().MICHI_TOOL_RESULT_MAX_CHARS;
    expect(content.length).toBeLessThanOrEqual(max);
    expect(content).toMatch(/truncated/);
    const run = (await t.rows()).toolRuns[0]!;
    expect(run.result).toBe(content);
    expect(run.resultChars).toBe(content.length);
  });

  it("the round cap: the last allowed round gets no tools, and the visitor is told", async () => {
    const rounds = env().MICHI_MAX_TOOL_ROUNDS;
    const t = await turn([toolCall("lookup_stock", '{"sku":"A1"}')]);
    expect(w.fake.requests).toHaveLength(rounds);
    expect(w.fake.requests.map((r) => Boolean(r.body.tools))).toEqual([
      ...Array(rounds - 1).fill(true),
      false,
    ]);
    expect(last(t.events)).toMatchObject({ event: "error", data: { code: "round_cap" } });
    const rows = await t.rows();
    expect(rows.toolRuns).toHaveLength(rounds - 1);
    expect(rows.messages[1]).toMatchObject({ status: "failed", reason: "round_cap" });
  });

  it("two tool calls of one round run concurrently inside the real wrapper", async () => {
    const order: string[] = [];
    let bStarted!: () => void;
    const started = new Promise<void>((r) => {
      bStarted = r;
    });
    // A finishes only after B has started: run one after the other, A would time out instead.
    const a = testPack("pack_a", async () => {
      order.push("a start");
      await started;
      order.push("a end");
      return { a: true };
    });
    const b = testPack("pack_b", async () => {
      order.push("b start");
      bStarted();
      order.push("b end");
      return { b: true };
    });
    const both: Step = {
      type: "tool_calls",
      calls: [
        { id: "ca", name: "pack_a", arguments: "{}" },
        { id: "cb", name: "pack_b", arguments: "{}" },
      ],
    };
    const t = await turn([both, { type: "text", text: "Both done." }], [a, b]);
    expect(order).toEqual(["a start", "b start", "b end", "a end"]);
    expect((await t.rows()).toolRuns.map((r) => r.outcome).sort()).toEqual(["ok", "ok"]);
    const chips = t.events.filter((e) => e.event === "chip").map((e) => `${e.data.callId}:${e.data.state}`);
    expect(chips.slice(0, 2).sort()).toEqual(["ca:start", "cb:start"]);
  });
});

describe("the visitor leaves", () => {
  it("aborts the running pack and the turn, and stores the answer as cut short", async () => {
    const tenant = await w.tenant();
    const token = await w.token(tenant.widgetKey);
    let packSawAbort!: (v: boolean) => void;
    const sawAbort = new Promise<boolean>((r) => {
      packSawAbort = r;
    });
    const waiting = testPack(
      "waiting",
      (_c, _a, ctx) =>
        new Promise((_, reject) => {
          ctx.signal.addEventListener("abort", () => {
            packSawAbort(true);
            reject(new Error("aborted"));
          });
        }),
    );
    w.fake.setRules([
      {
        match: "leave",
        steps: [
          { type: "tool_calls", calls: [{ id: "w1", name: "waiting", arguments: "{}" }] },
          { type: "text", text: "never" },
        ],
      },
    ]);
    const leave = new AbortController();
    const res = await handleChat(
      w.chatRequest(tenant.widgetKey, { message: "I will leave" }, { token, signal: leave.signal }),
      tenant.widgetKey,
      depsWith([waiting], { env: () => ({ ...env(), MICHI_TOOL_TIMEOUT_MS: 30_000 }) }),
    );
    const reader = res.body!.getReader();
    let seen = "";
    while (!seen.includes("event: chip")) seen += new TextDecoder().decode((await reader.read()).value);
    leave.abort();
    while (!(await reader.read()).done) {
      // drain until the turn has finished and closed the stream
    }
    expect(await sawAbort).toBe(true);
    expect(w.fake.requests).toHaveLength(1);
    const rows = await w.rows(tenant.id);
    expect(rows.messages.map((m) => [m.role, m.status, m.reason])).toEqual([
      ["user", "complete", null],
      ["assistant", "failed", "disconnected"],
    ]);
    expect(rows.toolRuns).toHaveLength(1);
  });
});

describe("the visitor leaves mid-answer", () => {
  it("stops the model stream and stores the text so far as partial", async () => {
    const tenant = await w.tenant();
    const token = await w.token(tenant.widgetKey);
    w.fake.setRules([
      {
        match: "long story",
        steps: [{ type: "slow_text", text: "Once upon a time, far away", chunkDelayMs: 200 }],
      },
    ]);
    const leave = new AbortController();
    const res = await handleChat(
      w.chatRequest(tenant.widgetKey, { message: "tell me a long story" }, { token, signal: leave.signal }),
      tenant.widgetKey,
      depsWith([], { env: () => ({ ...env(), MICHI_MODEL_IDLE_TIMEOUT_MS: 30_000 }) }),
    );
    const reader = res.body!.getReader();
    let seen = "";
    while (!seen.includes("event: delta")) seen += new TextDecoder().decode((await reader.read()).value);
    leave.abort();
    while (!(await reader.read()).done) {
      // drain until the turn has finished and closed the stream
    }
    const answer = (await w.rows(tenant.id)).messages[1]!;
    expect(answer).toMatchObject({ role: "assistant", status: "partial", reason: "disconnected" });
    expect(answer.content.length).toBeGreaterThan(0);
    expect("Once upon a time, far away".startsWith(answer.content)).toBe(true);
    expect(answer.content).not.toBe("Once upon a time, far away");
  });
});

describe("the database is unreachable at the start of a turn", () => {
  it("answers 503 before any stream when the database cannot be reached", async () => {
    const t = await w.tenant();
    const token = await w.token(t.widgetKey);
    const res = await handleChat(
      w.chatRequest(t.widgetKey, { message: "hi" }, { token }),
      t.widgetKey,
      depsWith([], { db: () => Promise.reject(new Error("connect ECONNREFUSED 127.0.0.1:5432")) }),
    );
    expect(res.status).toBe(503);
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(body.error).toMatchObject({
      code: "db_unavailable",
      message: expect.stringMatching(/unavailable/),
    });
    expect(JSON.stringify(body)).not.toMatch(/ECONNREFUSED/);
  });

  it("leaves no half-written rows when it fails while storing the visitor's message", async () => {
    const t = await w.tenant();
    const token = await w.token(t.widgetKey);
    // The database fails the visitor's message after the conversation was inserted in the same statement
    // (michi_open_turn): a trigger refuses this one message, as a full disk or a lost connection would.
    const marker = `refuse-me-${t.id}`;
    await w.db.platform.execute(
      sql.raw(`create or replace function test_refuse_message() returns trigger language plpgsql as $$
        begin
          if new.content = '${marker}' then raise exception 'disk full'; end if;
          return new;
        end $$`),
    );
    await w.db.platform.execute(
      sql.raw(`create trigger test_refuse_message before insert on messages
        for each row execute function test_refuse_message()`),
    );
    try {
      const res = await handleChat(
        w.chatRequest(t.widgetKey, { message: marker }, { token }),
        t.widgetKey,
        depsWith([]),
      );
      expect(res.status).toBe(503);
    } finally {
      await w.db.platform.execute(sql.raw("drop trigger test_refuse_message on messages"));
    }
    expect(w.fake.requests).toHaveLength(0);
    const rows = await w.rows(t.id);
    expect(rows.conversations).toHaveLength(0);
    expect(rows.messages).toHaveLength(0);
  });

  it("keeps the visitor's message and says so plainly when the answer cannot be stored at the end", async () => {
    const real = w.db;
    let down = false;
    // The database goes away while the turn runs: the pack flips it, then the model answers.
    const dropping: DbHandle = {
      ...real,
      forTenant: (tenantId, fn) =>
        down ? Promise.reject(new Error("Connection terminated unexpectedly")) : real.forTenant(tenantId, fn),
      tenantCall: (fn, tenantId, args) =>
        down
          ? Promise.reject(new Error("Connection terminated unexpectedly"))
          : real.tenantCall(fn, tenantId, args),
    };
    const dropper = testPack("drop_db", async () => {
      down = true;
      return { ok: true };
    });
    const { res, events, rows } = await turn(
      [toolCall("drop_db"), { type: "text", text: "All good." }],
      [dropper],
      // A short bound: the retries are proven in chat-store-retry.test.ts; here only the final message counts.
      { db: async () => dropping, storeRetry: { totalMs: 200, firstDelayMs: 20, maxDelayMs: 50 } },
    );
    expect(res.status).toBe(200);
    expect(textOf(events)).toBe("All good.");
    const last = events.at(-1)!;
    expect(last.event).toBe("error");
    expect(last.data).toMatchObject({
      code: "db_unavailable",
      message: expect.stringMatching(/could not save/),
    });
    expect(last.data.conversationId).toEqual(expect.any(String));
    const stored = await rows();
    expect(stored.messages.map((m) => [m.role, m.status])).toEqual([["user", "complete"]]);
  });
});
