import type { Dialect } from "./base";

// Together AI: OpenAI-compatible chunks; usage on the last chunk together with the finish reason.
// Sources: https://docs.together.ai/docs/openai-api-compatibility, https://docs.together.ai/docs/function-calling.
export const together: Dialect = {
  name: "together",
  preset: "together",
  model: "meta-llama/Llama-3.3-70B-Instruct-Turbo",
  sources: ["docs.together.ai/docs/openai-api-compatibility"],
  opts: {
    index: "position",
    args: "pieces",
    usage: "always-final",
    streamError: "data-error",
    idPrefix: "call_",
  },
  refuse: () => null,
};
