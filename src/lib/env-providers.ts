import "server-only";
import { z } from "zod";
import { commaList } from "@/shared/parse";

// Model providers from the environment. The default provider is today's OPENAI_BASE_URL / OPENAI_API_KEY
// (optionally with OPENAI_PRESET) and serves MICHI_MODELS. More providers are named in MICHI_PROVIDERS; each
// reads MICHI_PROVIDER_<NAME>_BASE_URL, _API_KEY, _PRESET and _MODELS. A model belongs to the named provider
// that lists it, else to the default one.

export const PRESET_NAMES = [
  "openai",
  "azure",
  "openrouter",
  "groq",
  "together",
  "mistral",
  "deepseek",
  "gemini",
  "anthropic",
  "ollama",
  "vllm",
  "llama-server",
  "lmstudio",
  "localai",
  "generic",
] as const;
export type PresetName = (typeof PRESET_NAMES)[number];

export type ProviderConfig = {
  /** "default" for OPENAI_*; otherwise the lower-cased name from MICHI_PROVIDERS. */
  name: string;
  baseURL?: string;
  apiKey?: string;
  preset?: PresetName;
  models: string[];
};

export const presetSchema = z
  .string()
  .optional()
  .transform((v) => (v?.trim() ? v.trim().toLowerCase() : undefined))
  .refine((v) => v === undefined || (PRESET_NAMES as readonly string[]).includes(v), {
    message: `must be one of ${PRESET_NAMES.join(", ")}`,
  })
  .transform((v) => v as PresetName | undefined);

const providerSchema = z.object({
  BASE_URL: z.url("must be a URL"),
  API_KEY: z
    .string()
    .optional()
    .transform((v) => (v?.trim() ? v.trim() : undefined)),
  PRESET: presetSchema,
  MODELS: z
    .string()
    .optional()
    .transform(commaList)
    .refine((v) => v.length > 0, { message: "must list at least one model" }),
});

type Source = Record<string, string | undefined>;

/** The named providers, or problems worded like the rest of the env errors. */
export function parseProviders(
  source: Source,
  names: string[],
): { providers: ProviderConfig[]; problems: string[] } {
  const providers: ProviderConfig[] = [];
  const problems: string[] = [];
  for (const raw of names) {
    if (!/^[A-Za-z][A-Za-z0-9_]*$/.test(raw)) {
      problems.push(`MICHI_PROVIDERS: "${raw}" must be letters, digits and _ (starting with a letter)`);
      continue;
    }
    const prefix = `MICHI_PROVIDER_${raw.toUpperCase()}_`;
    const parsed = providerSchema.safeParse({
      BASE_URL: source[`${prefix}BASE_URL`],
      API_KEY: source[`${prefix}API_KEY`],
      PRESET: source[`${prefix}PRESET`],
      MODELS: source[`${prefix}MODELS`],
    });
    if (!parsed.success) {
      for (const issue of parsed.error.issues)
        problems.push(`${prefix}${issue.path.join(".")}: ${issue.message}`);
      continue;
    }
    providers.push({
      name: raw.toLowerCase(),
      baseURL: parsed.data.BASE_URL,
      apiKey: parsed.data.API_KEY,
      preset: parsed.data.PRESET,
      models: parsed.data.MODELS,
    });
  }
  return { providers, problems };
}
