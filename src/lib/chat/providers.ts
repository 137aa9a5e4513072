import "server-only";
import type { Env } from "../env";
import type { PresetName, ProviderConfig } from "../env-providers";
import { processSlot } from "../process-slot";

// What each OpenAI-compatible server accepts, by preset, plus what this process learned from refusals.
// A preset is picked by the operator's explicit name, else by the base URL's host; an unknown server gets the
// generic profile and is adapted on its first refusal (see model-call.ts), so it still works.

export type Profile = {
  preset: PresetName;
  /** The name of the output-limit parameter this server wants. */
  outputParam: "max_tokens" | "max_completion_tokens";
  /** Send stream_options.include_usage (some servers refuse it; some report usage anyway). */
  streamOptions: boolean;
  /** Offer tools at all. */
  tools: boolean;
  /** Send the round's reasoning_content back with the assistant's tool calls (DeepSeek thinking mode). */
  echoReasoning: boolean;
  /** What the operator should do when this server refuses tools. */
  toolsAdvice: string;
};

const GENERIC: Profile = {
  preset: "generic",
  outputParam: "max_tokens",
  streamOptions: true,
  tools: true,
  echoReasoning: false,
  toolsAdvice: "Check that the model server and the model support OpenAI-style tool calling.",
};

/** The gpt-5 family and the o-series refuse max_tokens (400 unsupported_parameter). */
const NEW_OPENAI = /^(gpt-5|o\d)/i;

function preset(name: PresetName, model: string): Profile {
  switch (name) {
    case "openai":
    case "azure":
      // Both accept max_completion_tokens for every current model; the reasoning models accept nothing else.
      return { ...GENERIC, preset: name, outputParam: "max_completion_tokens" };
    case "groq":
      return { ...GENERIC, preset: name, outputParam: "max_completion_tokens" };
    case "mistral":
      // Mistral's schema forbids unknown fields: 422 extra_forbidden for stream_options and
      // max_completion_tokens. It reports usage in the last chunk without being asked.
      return { ...GENERIC, preset: name, streamOptions: false };
    case "deepseek":
      return { ...GENERIC, preset: name, echoReasoning: true };
    case "vllm":
      return {
        ...GENERIC,
        preset: name,
        toolsAdvice:
          "Start vLLM with --enable-auto-tool-choice --tool-call-parser <parser for your model> (e.g. hermes for Qwen, llama3_json for Llama 3).",
      };
    case "llama-server":
      return {
        ...GENERIC,
        preset: name,
        toolsAdvice: "Start llama-server with --jinja (and a chat template that supports tools).",
      };
    case "ollama":
      return {
        ...GENERIC,
        preset: name,
        toolsAdvice:
          "Choose a model with tool support: `ollama show <model>` lists tools under Capabilities.",
      };
    case "lmstudio":
    case "localai":
      return {
        ...GENERIC,
        preset: name,
        toolsAdvice: "Load a model whose chat template supports tools in the model server.",
      };
    case "openrouter":
    case "together":
    case "gemini":
    case "anthropic":
    case "generic":
      return {
        ...GENERIC,
        preset: name,
        outputParam: name === "generic" && NEW_OPENAI.test(model) ? "max_completion_tokens" : "max_tokens",
      };
  }
}

const HOSTS: [RegExp, PresetName][] = [
  [/^api\.openai\.com$/, "openai"],
  [/\.openai\.azure\.com$|\.cognitiveservices\.azure\.com$|\.services\.ai\.azure\.com$/, "azure"],
  [/^openrouter\.ai$/, "openrouter"],
  [/^api\.groq\.com$/, "groq"],
  [/^api\.together\.(xyz|ai)$/, "together"],
  [/^api\.mistral\.ai$/, "mistral"],
  [/^api\.deepseek\.com$/, "deepseek"],
  [/^generativelanguage\.googleapis\.com$/, "gemini"],
  [/^api\.anthropic\.com$/, "anthropic"],
];

export function presetFor(provider: Pick<ProviderConfig, "preset" | "baseURL">): PresetName {
  if (provider.preset) return provider.preset;
  if (!provider.baseURL) return "openai"; // no base URL means api.openai.com (model-http.ts)
  let host = "";
  try {
    host = new URL(provider.baseURL).hostname;
  } catch {
    return "generic";
  }
  return HOSTS.find(([re]) => re.test(host))?.[1] ?? "generic";
}

/** The default provider (OPENAI_*), when configured. */
export function defaultProvider(e: Env): ProviderConfig | null {
  if (!e.OPENAI_BASE_URL && !e.OPENAI_API_KEY) return null;
  return {
    name: "default",
    baseURL: e.OPENAI_BASE_URL,
    apiKey: e.OPENAI_API_KEY,
    preset: e.OPENAI_PRESET,
    models: [...e.MICHI_MODELS],
  };
}

/** Every model visitors may be served, in the operator's order: MICHI_MODELS first, then named providers'. */
export function allowedModels(e: Env): string[] {
  const named = e.providers ?? [];
  const fromNamed = named.flatMap((p) => p.models);
  const out = defaultProvider(e) ? [...e.MICHI_MODELS] : e.MICHI_MODELS.filter((m) => fromNamed.includes(m));
  for (const m of fromNamed) if (!out.includes(m)) out.push(m);
  return out;
}

export function providerFor(e: Env, model: string): ProviderConfig | null {
  return (e.providers ?? []).find((p) => p.models.includes(model)) ?? defaultProvider(e);
}

// ---- What this process learned from refusals, per server and model ------------------------------------------

export type Learned = Partial<Pick<Profile, "outputParam" | "streamOptions" | "tools" | "echoReasoning">> & {
  /** Why tools are off, in the server's words, and what to do about it, for the setup checklist. */
  toolsRefused?: string;
  toolsAdvice?: string;
  /** When tools were refused: they are offered again after TOOLS_RETRY_MS, in case the server was fixed. */
  toolsRefusedAt?: number;
  /** Plain-words notes of each adaptation, for the model check. */
  notes: string[];
};

const learnedSlot = processSlot<Map<string, Learned>>("Learned");
const learnedMap = () => {
  return learnedSlot.use(() => new Map());
};
const keyOf = (baseURL: string | undefined, model: string) => `${baseURL ?? "openai"}|${model}`;

export function learned(baseURL: string | undefined, model: string): Learned {
  const m = learnedMap();
  const k = keyOf(baseURL, model);
  let l = m.get(k);
  if (!l) {
    l = { notes: [] };
    m.set(k, l);
  }
  return l;
}

/** Every server and model whose tools were refused in this process, for the admin checklist. */
export function toolRefusals(): { server: string; model: string; reason: string; advice: string }[] {
  return [...learnedMap()].flatMap(([k, l]) => {
    if (!l.toolsRefused) return [];
    const cut = k.lastIndexOf("|");
    return [
      {
        server: k.slice(0, cut),
        model: k.slice(cut + 1),
        reason: l.toolsRefused,
        advice: l.toolsAdvice ?? "",
      },
    ];
  });
}

/** Tests only: start from the presets again. */
export function forgetLearned(): void {
  learnedMap().clear();
}

export const TOOLS_RETRY_MS = 15 * 60_000;

/** The preset for the provider, with what was learned in this process laid over it. */
export function profileFor(
  provider: Pick<ProviderConfig, "preset" | "baseURL">,
  model: string,
  now = Date.now(),
): Profile {
  const base = preset(presetFor(provider), model);
  const l = learned(provider.baseURL, model);
  const { notes: _n, toolsRefused: _t, toolsAdvice: _a, toolsRefusedAt: at, ...over } = l;
  // The operator may have restarted the server with tool support: offer tools again now and then.
  if (over.tools === false && at !== undefined && now - at > TOOLS_RETRY_MS) delete over.tools;
  return { ...base, ...over };
}

/** Tools just worked on this server: forget an earlier refusal (and its checklist entry). */
export function toolsAccepted(baseURL: string | undefined, model: string): void {
  const l = learned(baseURL, model);
  if (l.tools !== false && !l.toolsRefused) return;
  delete l.tools;
  delete l.toolsRefused;
  delete l.toolsRefusedAt;
}
