import type { Dialect } from "./base";

// OpenRouter: SSE comment lines ": OPENROUTER PROCESSING" while a request waits, reasoning under `reasoning`,
// usage on the last chunk, and an error after the stream started sent as a data chunk with a top-level
// `error` and finish_reason "error". Sources: https://openrouter.ai/docs/api-reference/streaming
// ("Stream Cancellation", "Handling Errors During Streaming"), https://openrouter.ai/docs/use-cases/usage-accounting.
export const openrouter: Dialect = {
  name: "openrouter",
  preset: "openrouter",
  model: "openai/gpt-4o-mini",
  sources: ["openrouter.ai/docs/api-reference/streaming"],
  opts: {
    index: "position",
    args: "pieces",
    usage: "always-final",
    reasoningField: "reasoning",
    comment: ": OPENROUTER PROCESSING",
    streamError: "openrouter",
    idPrefix: "call_",
  },
  refuse: () => null,
};
