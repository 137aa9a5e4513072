import type { Dialect } from "./base";

// Anthropic's OpenAI SDK compatibility endpoint (https://api.anthropic.com/v1/): OpenAI-shaped chunks with
// indexed tool calls; stream_options.include_usage is honoured.
// Source: https://docs.anthropic.com/en/api/openai-sdk (supported fields, streaming).
export const anthropic: Dialect = {
  name: "anthropic",
  preset: "anthropic",
  model: "claude-sonnet-4-5",
  sources: ["docs.anthropic.com/en/api/openai-sdk"],
  opts: {
    index: "position",
    args: "pieces",
    usage: "when-asked",
    streamError: "data-error",
    idPrefix: "toolu_",
  },
  refuse: () => null,
};
