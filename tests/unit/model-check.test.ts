import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { checkModels, describeChecks, type ModelCheck } from "@/lib/chat/model-check";
import { forgetLearned } from "@/lib/chat/providers";
import { parseEnv } from "@/lib/env";
import { mistral } from "../support/dialects/mistral";
import { openai } from "../support/dialects/openai";
import { vllm } from "../support/dialects/vllm";
import { type FakeModel, startFakeModel } from "../support/fake-model";

// The operator's "Check model" against fake servers speaking real dialects: what works, in words, and what
// the profile adapted.

let fake: FakeModel;
beforeAll(async () => {
  fake = await startFakeModel();
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.reset();
  forgetLearned();
  fake.setRules([
    { match: "single word", steps: [{ type: "text", text: "ready" }] },
    {
      match: "get_time",
      steps: [
        {
          type: "tool_calls",
          calls: [
            { name: "get_time", arguments: '{"city":"Paris"}' },
            { name: "get_time", arguments: '{"city":"Tokyo"}' },
          ],
        },
      ],
    },
  ]);
});

const secrets = () => ({ secretKey: Buffer.alloc(32, 1).toString("base64"), authSecret: "x".repeat(40) });
const envFor = (model: string, preset?: string) =>
  parseEnv(
    {
      NODE_ENV: "test",
      OPENAI_BASE_URL: fake.url,
      MICHI_MODELS: model,
      ...(preset ? { OPENAI_PRESET: preset } : {}),
    },
    secrets,
  );

async function one(model: string, preset?: string, extra: Record<string, string> = {}): Promise<ModelCheck> {
  const e = envFor(model, preset);
  const checks = await checkModels({ ...e, ...extra });
  if (typeof checks === "string") throw new Error(checks);
  return checks[0]!;
}

describe("check model", () => {
  it("reports streaming, usage and two tools at once on a server that does it all", async () => {
    fake.setDialect({ dialect: openai, flags: {} });
    const c = await one("gpt-4o-mini", "openai");
    expect(c).toMatchObject({ ok: true, streaming: true, usage: true, tools: true, parallelTools: true });
    expect(describeChecks([c])).toMatch(/Tools work, including two calls at once/);
    expect(c.lines.at(-1)).toMatch(/needed no adaptation/);
  });

  it("says when tools are refused, with the advice, and what the profile adapted", async () => {
    fake.setDialect({ dialect: vllm, flags: { toolsOff: true } });
    const c = await one("qwen", "vllm");
    expect(c).toMatchObject({ ok: true, tools: false, parallelTools: false });
    const text = c.lines.join("\n");
    expect(text).toMatch(/Tools are refused by the server: ".*enable-auto-tool-choice/);
    expect(text).toMatch(/Advice: Start vLLM with --enable-auto-tool-choice --tool-call-parser/);
    expect(text).toMatch(/vllm profile adapted: it answers without tools/);
  });

  it("an unknown server that refuses stream_options is adapted and still reports usage", async () => {
    fake.setDialect({ dialect: mistral, flags: {} });
    const c = await one("mistral-small-latest");
    expect(c).toMatchObject({ ok: true, usage: true, tools: true });
    expect(c.lines.at(-1)).toMatch(/generic profile adapted: it stops asking for usage in the stream/);
  });

  it("a model that cannot answer at all fails the check, with the server's own status and words", async () => {
    // OpenAI's answer to a wrong key (its documented error object), quoting part of the key it was sent.
    fake.enqueue({
      type: "http_error",
      status: 401,
      body: {
        error: {
          message:
            "Incorrect API key provided: sk-test-0123456789abcdef. You can find your API key at https://platform.openai.com/account/api-keys.",
          type: "invalid_request_error",
          param: null,
          code: "invalid_api_key",
        },
      },
    });
    const c = await one("gpt-4o-mini", "openai", { OPENAI_API_KEY: "sk-test-0123456789abcdef" });
    expect(c.ok).toBe(false);
    expect(c.lines[0]).toMatch(
      /plain answer failed \(model_error, the server said: 401 Incorrect API key provided: \[key\]/,
    );
    expect(c.lines.join("\n")).not.toContain("sk-test-0123456789abcdef");
  });
});
