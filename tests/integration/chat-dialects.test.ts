import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { platformPacks } from "@/lib/chat/packs";
import { forgetLearned, toolRefusals } from "@/lib/chat/providers";
import { listConversations } from "@/lib/db/queries/insights-list";
import { usageReport } from "@/lib/db/queries/insights-usage";
import { env } from "@/lib/env";
import type { PresetName } from "@/lib/env-providers";
import type { ToolPack } from "@/lib/tools/contract";
import type { EnabledPack } from "@/lib/tools/runtime";
import { handleChat } from "@/widget/server/chat";
import type { WidgetDeps } from "@/widget/server/deps";
import { type ChatWorld, readEvents, type SseEvent, startChatWorld, textOf } from "../support/chat-world";
import { DIALECTS, type Dialect, type DialectFlags } from "../support/dialects";
import { deepseek } from "../support/dialects/deepseek";
import { groq } from "../support/dialects/groq";
import { llamaServer } from "../support/dialects/llama-server";
import { mistral } from "../support/dialects/mistral";
import { openai } from "../support/dialects/openai";
import { vllm } from "../support/dialects/vllm";
import { type Step, startFakeModel } from "../support/fake-model";

// The whole engine (widget chat endpoint → loop → model call → store) against a fake server speaking each
// provider's dialect (tests/support/dialects, sources cited there). Every case ends complete or with a visitor
// message, and the stored status matches what the visitor saw.

let w: ChatWorld;
beforeAll(async () => {
  w = await startChatWorld();
});
afterAll(() => w?.close());
beforeEach(() => {
  w.fake.reset();
  forgetLearned();
});

const info: ToolPack = {
  id: "get_business_info",
  label: "Checking our details",
  definition: {
    type: "function",
    function: {
      name: "get_business_info",
      description: "Opening hours and address (test)",
      parameters: { type: "object", properties: { topic: { type: "string" } }, required: ["topic"] },
    },
  },
  configFields: [],
  run: async (_c, args) => ({ topic: args.topic, answer: args.topic === "hours" ? "9 to 5" : "1 Main St" }),
};

function deps(model: string, preset: string | undefined): WidgetDeps {
  const enabled: EnabledPack[] = [{ pack: info, config: {}, definition: info.definition }];
  return {
    db: async () => w.db,
    env: () => ({ ...env(), OPENAI_PRESET: preset as PresetName | undefined, MICHI_MODELS: [model] }),
    packs: { ...platformPacks, loadEnabled: async () => enabled },
  };
}

async function turn(
  d: Dialect,
  steps: Step[],
  o: { flags?: DialectFlags; preset?: string; model?: string } = {},
) {
  w.fake.setDialect({ dialect: d, flags: o.flags ?? {} });
  const tenant = await w.tenant();
  const token = await w.token(tenant.widgetKey);
  const message = `question ${Math.random().toString(36).slice(2)}`;
  if (steps.length > 0) w.fake.setRules([{ match: message, steps }]);
  const res = await handleChat(
    w.chatRequest(tenant.widgetKey, { message }, { token }),
    tenant.widgetKey,
    deps(o.model ?? d.model, "preset" in o ? o.preset : d.preset),
  );
  expect(res.status).toBe(200);
  const events = await readEvents(res);
  const rows = await w.rows(tenant.id);
  return { events, rows, tenant, answer: rows.messages.find((m) => m.role === "assistant")! };
}

const last = (e: SseEvent[]) => e.at(-1)!;
const call = (id: string, topic: string) => ({
  id,
  name: "get_business_info",
  arguments: JSON.stringify({ topic }),
});
const answer: Step = { type: "text", text: "Here you go: {{tool.answer}}." };
const toolIdsSent = () =>
  w.fake.requests.flatMap((r) => r.body.messages.filter((m) => m.role === "tool").map((m) => m.tool_call_id));

describe.each(DIALECTS.map((d) => [d.name, d] as const))("%s", (_name, d) => {
  it("a plain turn completes with usage recorded", async () => {
    const t = await turn(d, [{ type: "text", text: "We open at nine." }]);
    expect(textOf(t.events)).toBe("We open at nine.");
    expect(last(t.events).event).toBe("done");
    expect(t.answer).toMatchObject({ status: "complete", reason: null, content: "We open at nine." });
    expect(t.answer.promptTokens).toBeGreaterThan(0);
    expect(t.answer.usageEstimated).toBe(false);
    expect(t.rows.usage[0]!.promptTokens).toBe(t.answer.promptTokens);
  });

  it("a one-tool turn shows the chip and sends the call's id back", async () => {
    const t = await turn(d, [{ type: "tool_calls", calls: [call("c_one", "hours")] }, answer]);
    expect(t.events.filter((e) => e.event === "chip").map((e) => e.data.state)).toEqual(["start", "done"]);
    expect(textOf(t.events)).toBe("Here you go: 9 to 5.");
    expect(toolIdsSent()).toEqual(["c_one"]);
    expect(t.answer.status).toBe("complete");
    expect(t.rows.toolRuns.map((r) => r.outcome)).toEqual(["ok"]);
  });

  it("two parallel calls run as two, each answered under its own id", async () => {
    const t = await turn(d, [
      { type: "tool_calls", calls: [call("c_a", "hours"), call("c_b", "address")] },
      answer,
    ]);
    expect(toolIdsSent().sort()).toEqual(["c_a", "c_b"]);
    expect(t.rows.toolRuns.map((r) => (r.args as { topic: string }).topic).sort()).toEqual([
      "address",
      "hours",
    ]);
    expect(t.answer.status).toBe("complete");
    expect(t.answer.completionTokens).toBeGreaterThan(0);
  });

  it("a cut connection keeps the text as partial and says interrupted", async () => {
    const t = await turn(d, [{ type: "cut", text: "We are open from nine until five on weekdays." }]);
    expect(last(t.events)).toMatchObject({ event: "error", data: { code: "interrupted" } });
    expect(t.answer).toMatchObject({ status: "partial", reason: "interrupted", usageEstimated: true });
    // Generated but never reported: estimated, and said so on the Conversations list and the Usage page.
    expect(t.rows.usage[0]!.estimatedTokens).toBe(t.answer.promptTokens + t.answer.completionTokens);
    const [listed] = (await w.db.forTenant(t.tenant.id, (tx) => listConversations(tx, t.tenant.id, {})))
      .items;
    expect(listed!.tokensEstimated).toBe(true);
    const report = await w.db.forTenant(t.tenant.id, (tx) =>
      usageReport(tx, { tenantId: t.tenant.id }, { period: 7 }),
    );
    expect(report.estimatedTokens).toBeGreaterThan(0);
    expect(report.month.estimatedTokens).toBe(t.rows.usage[0]!.estimatedTokens);
  });

  it("an error inside the stream is a model fault, never complete", async () => {
    const t = await turn(d, [
      { type: "stream_error", text: "We are open from nine until five on weekdays." },
    ]);
    expect(last(t.events)).toMatchObject({ event: "error", data: { code: "model_error" } });
    expect(t.answer.status).toBe("partial");
  });

  it("a content filter stop and an output-limit stop are partial with their own messages", async () => {
    const f = await turn(d, [{ type: "content_filter", text: "Well, about that topic I would say" }]);
    expect(last(f.events)).toMatchObject({ event: "error", data: { code: "content_filter" } });
    expect(f.answer).toMatchObject({ status: "partial", reason: "content_filter" });
    const l = await turn(d, [{ type: "length", text: "A long story that keeps going and going" }]);
    expect(last(l.events)).toMatchObject({
      event: "error",
      data: { code: "length", message: expect.stringMatching(/too long/) },
    });
    expect(l.answer).toMatchObject({ status: "partial", reason: "length" });
  });

  it("refusals: 400/401/404 fail at once and cost nothing; 5xx retries then fails", async () => {
    for (const status of [400, 401, 404]) {
      w.fake.reset();
      w.fake.enqueue({ type: "http_error", status });
      const t = await turn(d, []);
      expect(w.fake.requests).toHaveLength(1);
      expect(last(t.events)).toMatchObject({ event: "error", data: { code: "model_error" } });
      expect(t.answer).toMatchObject({
        status: "failed",
        promptTokens: 0,
        completionTokens: 0,
        usageEstimated: false,
      });
      expect(t.rows.usage).toEqual([]);
    }
    w.fake.reset();
    w.fake.enqueue(...Array.from({ length: 3 }, (): Step => ({ type: "http_error", status: 503 })));
    const t = await turn(d, []);
    expect(w.fake.requests).toHaveLength(3);
    expect(t.answer).toMatchObject({ status: "failed", reason: "model_error", promptTokens: 0 });
  });

  it("a 429 with a short retry-after is retried and the visitor never notices", async () => {
    w.fake.enqueue({ type: "http_error", status: 429, headers: { "retry-after-ms": "50" } });
    const t = await turn(d, [{ type: "text", text: "Back again." }]);
    expect(w.fake.requests).toHaveLength(2);
    expect(textOf(t.events)).toBe("Back again.");
    expect(t.answer.status).toBe("complete");
  });

  it("a 429 with a long retry-after ends the turn at once as model_busy", async () => {
    w.fake.enqueue({ type: "http_error", status: 429, headers: { "retry-after": "30" } });
    const t = await turn(d, []);
    expect(w.fake.requests).toHaveLength(1);
    expect(last(t.events)).toMatchObject({
      event: "error",
      data: { code: "model_busy", message: expect.stringMatching(/busy/) },
    });
    expect(t.answer).toMatchObject({ status: "failed", reason: "model_busy", promptTokens: 0 });
  });
});

describe("servers that refuse what they do not accept", () => {
  it("an unknown server refusing max_tokens gets max_completion_tokens, once, and it is remembered", async () => {
    const t = await turn(openai, [{ type: "text", text: "Hello." }], {
      preset: undefined,
      model: "my-model",
      flags: { refuseMaxTokens: true },
    });
    expect(t.answer.status).toBe("complete");
    expect(w.fake.requests.map((r) => "max_tokens" in r.body)).toEqual([true, false]);
    expect(w.fake.requests[1]!.body.max_completion_tokens).toBe(env().MICHI_MAX_OUTPUT_TOKENS);
    w.fake.requests.length = 0;
    await turn(openai, [{ type: "text", text: "Again." }], {
      preset: undefined,
      model: "my-model",
      flags: { refuseMaxTokens: true },
    });
    expect(w.fake.requests).toHaveLength(1);
  });

  it("Mistral reached as an unknown server: stream_options refused with 422, dropped, usage still recorded", async () => {
    const t = await turn(mistral, [{ type: "text", text: "Bonjour." }], { preset: undefined });
    expect(t.answer).toMatchObject({ status: "complete", content: "Bonjour." });
    expect(w.fake.requests.map((r) => Boolean(r.body.stream_options))).toEqual([true, false]);
    expect(t.answer.promptTokens).toBeGreaterThan(0);
  });

  it("DeepSeek's thinking mode behind an unknown URL: the refused follow-up is retried with reasoning_content", async () => {
    const t = await turn(deepseek, [{ type: "tool_calls", calls: [call("d1", "hours")] }, answer], {
      preset: undefined,
    });
    expect(t.answer).toMatchObject({ status: "complete", content: "Here you go: 9 to 5." });
    const followUps = w.fake.requests
      .slice(1)
      .map((r) => r.body.messages.find((m) => m.role === "assistant"));
    expect(followUps.map((m) => (m ? "reasoning_content" in m : null))).toEqual([false, true]);
    // The thinking was sent back, never shown or stored.
    expect(textOf(t.events)).not.toMatch(/think/);
    expect(t.answer.content).not.toMatch(/think/);
  });

  it.each([
    ["vLLM", vllm, /enable-auto-tool-choice/],
    ["llama-server", llamaServer, /--jinja/],
  ] as const)("%s without tool support answers without tools and records why", async (_n, d, advice) => {
    const t = await turn(d, [{ type: "text", text: "I can still talk." }], { flags: { toolsOff: true } });
    expect(t.answer).toMatchObject({ status: "complete", content: "I can still talk." });
    expect(w.fake.requests.map((r) => Boolean(r.body.tools))).toEqual([true, false]);
    const refused = toolRefusals();
    expect(refused).toHaveLength(1);
    expect(refused[0]!.model).toBe(d.model);
    expect(refused[0]!.advice).toMatch(advice);
  });
});

describe("several providers", () => {
  it("a tenant's model served by a named provider is called there, in that provider's dialect", async () => {
    const second = await startFakeModel();
    try {
      second.setDialect({ dialect: groq, flags: {} });
      const model = "llama-3.3-70b-versatile";
      const tenant = await w.tenant({ bot: { model } });
      const token = await w.token(tenant.widgetKey);
      second.setRules([
        { match: "hours", steps: [{ type: "tool_calls", calls: [call("g1", "hours")] }, answer] },
      ]);
      const res = await handleChat(
        w.chatRequest(tenant.widgetKey, { message: "your hours?" }, { token }),
        tenant.widgetKey,
        {
          ...deps("fake-small", undefined),
          env: () => ({
            ...env(),
            MICHI_MODELS: ["fake-small"],
            providers: [
              { name: "groq", baseURL: second.url, apiKey: "gsk_test", preset: "groq", models: [model] },
            ],
          }),
        },
      );
      const events = await readEvents(res);
      expect(textOf(events)).toBe("Here you go: 9 to 5.");
      expect(w.fake.requests).toHaveLength(0);
      expect(second.requests.map((r) => [r.body.model, r.headers.authorization])).toEqual([
        [model, "Bearer gsk_test"],
        [model, "Bearer gsk_test"],
      ]);
      // Groq's preset sends max_completion_tokens; its usage arrives under x_groq and is recorded.
      expect(second.requests[0]!.body.max_completion_tokens).toBeDefined();
      const rows = await w.rows(tenant.id);
      expect(rows.messages[1]).toMatchObject({ status: "complete", model, usageEstimated: false });
      expect(rows.messages[1]!.promptTokens).toBeGreaterThan(0);
    } finally {
      await second.close();
    }
  });
});
