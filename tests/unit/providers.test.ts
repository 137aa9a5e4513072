import { beforeEach, describe, expect, it } from "vitest";
import { createModelClient, modelProfile, modelStatus } from "@/lib/chat/model";
import { adaptationFor, retryAfter } from "@/lib/chat/model-refusals";
import { forgetLearned, learned, presetFor, profileFor } from "@/lib/chat/providers";
import { EnvError, parseEnv } from "@/lib/env";

const dev = () => ({ secretKey: Buffer.alloc(32, 7).toString("base64"), authSecret: "x".repeat(40) });
const parse = (s: Record<string, string>) => parseEnv({ NODE_ENV: "test", ...s }, dev);

beforeEach(() => forgetLearned());

describe("provider presets", () => {
  it("are found by the base URL's host, or named explicitly", () => {
    const at = (baseURL: string) => presetFor({ baseURL });
    expect(at("https://api.openai.com/v1")).toBe("openai");
    expect(at("https://shop-ai.openai.azure.com/openai/v1/")).toBe("azure");
    expect(at("https://openrouter.ai/api/v1")).toBe("openrouter");
    expect(at("https://api.groq.com/openai/v1")).toBe("groq");
    expect(at("https://api.together.xyz/v1")).toBe("together");
    expect(at("https://api.mistral.ai/v1")).toBe("mistral");
    expect(at("https://api.deepseek.com")).toBe("deepseek");
    expect(at("https://generativelanguage.googleapis.com/v1beta/openai/")).toBe("gemini");
    expect(at("https://api.anthropic.com/v1/")).toBe("anthropic");
    expect(at("http://localhost:11434/v1")).toBe("generic");
    expect(presetFor({ baseURL: "http://gpu-box:8000/v1", preset: "vllm" })).toBe("vllm");
    expect(presetFor({})).toBe("openai");
  });

  it("say what each server accepts", () => {
    expect(profileFor({ baseURL: "https://api.openai.com/v1" }, "gpt-5-mini").outputParam).toBe(
      "max_completion_tokens",
    );
    expect(profileFor({ baseURL: "https://api.mistral.ai/v1" }, "mistral-small-latest")).toMatchObject({
      outputParam: "max_tokens",
      streamOptions: false,
    });
    expect(profileFor({ baseURL: "https://api.deepseek.com" }, "deepseek-reasoner").echoReasoning).toBe(true);
    // An unknown server keeps today's request (max_tokens + stream_options), except for OpenAI's new models.
    expect(profileFor({ baseURL: "http://10.0.0.5:8080/v1" }, "llama")).toMatchObject({
      outputParam: "max_tokens",
      streamOptions: true,
      tools: true,
    });
    expect(profileFor({ baseURL: "http://proxy.local/v1" }, "o3-mini").outputParam).toBe(
      "max_completion_tokens",
    );
  });

  it("lay what this process learned over the preset", () => {
    learned("http://box/v1", "m").streamOptions = false;
    expect(profileFor({ baseURL: "http://box/v1" }, "m").streamOptions).toBe(false);
    expect(profileFor({ baseURL: "http://box/v1" }, "other").streamOptions).toBe(true);
  });
});

describe("named providers in the environment", () => {
  const env = parse({
    OPENAI_BASE_URL: "http://localhost:11434/v1",
    OPENAI_PRESET: "ollama",
    MICHI_MODELS: "qwen2.5:7b",
    MICHI_PROVIDERS: "groq,Gem",
    MICHI_PROVIDER_GROQ_BASE_URL: "https://api.groq.com/openai/v1",
    MICHI_PROVIDER_GROQ_API_KEY: "gsk_test",
    MICHI_PROVIDER_GROQ_MODELS: "llama-3.3-70b-versatile",
    MICHI_PROVIDER_GEM_BASE_URL: "https://generativelanguage.googleapis.com/v1beta/openai/",
    MICHI_PROVIDER_GEM_MODELS: "gemini-2.5-flash, gemini-3-flash-preview",
  });

  it("add their models after MICHI_MODELS, each served by its own server", () => {
    expect(modelStatus(env)).toEqual({
      configured: true,
      models: ["qwen2.5:7b", "llama-3.3-70b-versatile", "gemini-2.5-flash", "gemini-3-flash-preview"],
      defaultModel: "qwen2.5:7b",
    });
    expect(createModelClient(env, "llama-3.3-70b-versatile").baseURL).toBe("https://api.groq.com/openai/v1");
    expect(createModelClient(env, "llama-3.3-70b-versatile").apiKey).toBe("gsk_test");
    expect(createModelClient(env, "qwen2.5:7b").baseURL).toBe("http://localhost:11434/v1");
    expect(modelProfile(env, "llama-3.3-70b-versatile").profile.preset).toBe("groq");
    expect(modelProfile(env, "gemini-3-flash-preview").profile.preset).toBe("gemini");
    expect(modelProfile(env, "qwen2.5:7b").profile.preset).toBe("ollama");
  });

  it("are validated like every other variable", () => {
    let problems: string[] = [];
    try {
      parse({
        MICHI_PROVIDERS: "local,bad-name",
        MICHI_PROVIDER_LOCAL_BASE_URL: "not a url",
        MICHI_PROVIDER_LOCAL_PRESET: "skynet",
        OPENAI_PRESET: "nope",
      });
    } catch (e) {
      if (e instanceof EnvError) problems = e.problems;
    }
    const text = problems.join("\n");
    expect(text).toMatch(/OPENAI_PRESET: must be one of openai/);
    expect(text).toMatch(/MICHI_PROVIDER_LOCAL_BASE_URL: must be a URL/);
    expect(text).toMatch(/MICHI_PROVIDER_LOCAL_PRESET: must be one of/);
    expect(text).toMatch(/MICHI_PROVIDER_LOCAL_MODELS: must list at least one model/);
    expect(text).toMatch(/"bad-name" must be letters/);
  });

  it("today's single OPENAI_BASE_URL / OPENAI_API_KEY setup is unchanged", () => {
    const one = parse({ OPENAI_API_KEY: "sk-1", MICHI_MODELS: "gpt-4o-mini,gpt-4o" });
    expect(modelStatus(one)).toMatchObject({ configured: true, models: ["gpt-4o-mini", "gpt-4o"] });
    expect(createModelClient(one, "gpt-4o").apiKey).toBe("sk-1");
  });
});

describe("reading refusals", () => {
  const sent = {
    outputParam: "max_tokens" as const,
    streamOptions: true,
    tools: true,
    echoedReasoning: true,
    hasReasoning: true,
  };
  it("finds the parameter a 4xx names, and only then", () => {
    const f = (status: number, text: string) =>
      adaptationFor({ status, text, retryAfterMs: null }, sent)?.kind;
    expect(f(400, "Unsupported parameter: 'max_tokens' is not supported with this model.")).toBe(
      "outputParam",
    );
    expect(f(422, '{"loc":["body","stream_options","include_usage"],"type":"extra_forbidden"}')).toBe(
      "streamOptions",
    );
    expect(f(400, "Missing `reasoning_content` field")).toBe("echoReasoning");
    const notEchoed = { ...sent, echoedReasoning: false };
    expect(
      adaptationFor({ status: 400, text: "Missing `reasoning_content`", retryAfterMs: null }, notEchoed),
    ).toMatchObject({
      kind: "echoReasoning",
      on: true,
    });
    expect(
      f(400, '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set'),
    ).toBe("tools");
    expect(f(500, "tools param requires --jinja flag")).toBe("tools");
    expect(f(400, "registry.ollama.ai/library/gemma2:2b does not support tools")).toBe("tools");
    expect(f(401, "Incorrect API key provided")).toBeUndefined();
    const shown = adaptationFor(
      { status: 400, text: "tools are not supported for key sk-proj-abcdef123456", retryAfterMs: null },
      sent,
    );
    expect(shown).toMatchObject({ kind: "tools" });
    expect(JSON.stringify(shown)).not.toMatch(/abcdef123456/);
    expect(f(429, "max_tokens rate")).toBeUndefined();
    expect(f(400, "messages: too long")).toBeUndefined();
  });

  it("reads retry-after-ms, retry-after seconds and an HTTP date", () => {
    expect(retryAfter(new Headers({ "retry-after-ms": "1500" }))).toBe(1500);
    expect(retryAfter(new Headers({ "retry-after": "30" }))).toBe(30_000);
    const now = Date.parse("2026-01-01T00:00:00Z");
    expect(retryAfter(new Headers({ "retry-after": "Thu, 01 Jan 2026 00:00:05 GMT" }), now)).toBe(5000);
    expect(retryAfter(new Headers())).toBeNull();
  });
});

describe("tools refused", () => {
  it("are offered again after a while, and forgotten once they work", async () => {
    const { TOOLS_RETRY_MS, toolsAccepted, toolRefusals } = await import("@/lib/chat/providers");
    const l = learned("http://vllm/v1", "q");
    Object.assign(l, { tools: false, toolsRefused: "no tools", toolsRefusedAt: 1000 });
    expect(profileFor({ baseURL: "http://vllm/v1" }, "q", 1000 + 60_000).tools).toBe(false);
    expect(profileFor({ baseURL: "http://vllm/v1" }, "q", 1000 + TOOLS_RETRY_MS + 1).tools).toBe(true);
    expect(toolRefusals()).toHaveLength(1);
    toolsAccepted("http://vllm/v1", "q");
    expect(toolRefusals()).toHaveLength(0);
  });
});
