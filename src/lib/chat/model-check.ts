import "server-only";
import type { Env } from "../env";
import type { ToolDefinition } from "../tools/contract";
import { createModelClient, modelProfile, modelStatus } from "./model";
import { streamCompletion } from "./model-call";
import type { ModelClient } from "./model-http";
import type { ModelResult } from "./model-types";
import { learned, presetFor, providerFor } from "./providers";

// "Check model" for operators (the operator page and `npm run check:model`): for each configured model, a
// plain turn and a tool turn against the real provider, reported in words: what works and what the profile
// had to adapt. It costs a few hundred tokens per model, billed to nobody's tenant budget.

export type ModelCheck = {
  model: string;
  server: string;
  preset: string;
  streaming: boolean;
  usage: boolean;
  tools: boolean;
  parallelTools: boolean;
  /** In words, one finding per line. */
  lines: string[];
  ok: boolean;
};

const CLOCK: ToolDefinition = {
  type: "function",
  function: {
    name: "get_time",
    description: "The current local time in a city.",
    parameters: {
      type: "object",
      properties: { city: { type: "string", description: "City name" } },
      required: ["city"],
    },
  },
};

/**
 * ", the server said: 401 Incorrect API key …" from a refusal, for the operator's report. The configured keys are masked
 * in it (a provider may quote the key it was sent), and it is kept short.
 */
function serverSaid(f: ModelResult["failure"], e: Env): string {
  if (!f) return "";
  let text = f.text.replace(/\s+/g, " ").trim();
  const keys = [e.OPENAI_API_KEY, ...(e.providers ?? []).map((p) => p.apiKey)].filter(
    (k): k is string => typeof k === "string" && k.length >= 8,
  );
  for (const k of keys) text = text.split(k).join("[key]");
  if (text.length > 300) text = `${text.slice(0, 300)}…`;
  return `, the server said: ${text || `${f.status} (no body)`}`;
}

type Deps = { client?: (e: Env, model: string) => ModelClient; signal?: AbortSignal };

export async function checkModel(e: Env, model: string, deps: Deps = {}): Promise<ModelCheck> {
  const provider = providerFor(e, model);
  const server = provider?.baseURL ?? "https://api.openai.com/v1";
  const preset = provider ? presetFor(provider) : "openai";
  const client = (deps.client ?? createModelClient)(e, model);
  const signal = deps.signal ?? new AbortController().signal;
  const call = (content: string, tools?: ToolDefinition[]) => {
    const { profile, serverKey } = modelProfile(e, model);
    return streamCompletion({
      client,
      model,
      messages: [
        { role: "system", content: "You are a connectivity check. Follow the instruction exactly." },
        { role: "user", content },
      ],
      tools,
      maxTokens: Math.max(e.MICHI_MAX_OUTPUT_TOKENS, 256),
      timeoutMs: e.MICHI_MODEL_TIMEOUT_MS,
      idleTimeoutMs: e.MICHI_MODEL_IDLE_TIMEOUT_MS,
      firstByteTimeoutMs: e.MICHI_MODEL_FIRST_BYTE_TIMEOUT_MS,
      signal,
      onDelta: () => {},
      profile,
      serverKey,
    });
  };

  const lines: string[] = [];
  const plain = await call("Reply with the single word: ready");
  const streaming = !plain.fault && plain.text.trim().length > 0;
  lines.push(
    streaming
      ? `Streaming works: it answered "${plain.text.trim().slice(0, 40)}".`
      : `A plain answer failed (${plain.fault ?? "empty answer"}${serverSaid(plain.failure, e)}): visitors cannot chat with this model.`,
  );
  const usage = plain.usage !== null;
  lines.push(
    usage
      ? "Usage is reported, so budgets count real tokens."
      : "Usage is not reported: budgets count estimates from the text.",
  );

  let tools = false;
  let parallelTools = false;
  if (streaming) {
    const t = await call("Use the get_time tool for Paris and for Tokyo, both at once, then stop.", [CLOCK]);
    tools = t.toolCalls.length > 0 && t.toolCalls.every((c) => c.name === "get_time");
    parallelTools = tools && t.toolCalls.length >= 2;
    if (t.toolsDropped) lines.push(`Tools are refused by the server: "${t.toolsDropped}".`);
    else if (t.fault) lines.push(`The tool turn failed (${t.fault}${serverSaid(t.failure, e)}).`);
    else if (!tools) lines.push("Tools were offered but the model did not call one: packs may go unused.");
    else
      lines.push(
        parallelTools
          ? "Tools work, including two calls at once."
          : "Tools work, one call at a time (the model did not make two calls at once).",
      );
  }

  const l = learned(provider?.baseURL, model);
  if (l.toolsRefused && l.toolsAdvice) lines.push(`Advice: ${l.toolsAdvice}`);
  lines.push(
    l.notes.length > 0
      ? `The ${preset} profile adapted: it ${[...new Set(l.notes)].join("; it ")}.`
      : `The ${preset} profile needed no adaptation.`,
  );
  return { model, server, preset, streaming, usage, tools, parallelTools, lines, ok: streaming };
}

/** Every configured model, one after the other (a provider's rate limit is shared). */
export async function checkModels(e: Env, deps: Deps = {}): Promise<ModelCheck[] | string> {
  const status = modelStatus(e);
  if (!status.configured) return status.reason;
  const out: ModelCheck[] = [];
  for (const model of status.models) out.push(await checkModel(e, model, deps));
  return out;
}

/** The report as plain text, for the command line and the operator page. */
export function describeChecks(checks: ModelCheck[] | string): string {
  if (typeof checks === "string") return checks;
  return checks
    .map((c) =>
      [
        `${c.ok ? "OK  " : "FAIL"} ${c.model} on ${c.server} (${c.preset})`,
        ...c.lines.map((l) => `     ${l}`),
      ].join("\n"),
    )
    .join("\n\n");
}
