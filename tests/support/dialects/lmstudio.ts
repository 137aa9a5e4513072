import type { Dialect } from "./base";

// LM Studio's OpenAI-compatible server (http://localhost:1234/v1): OpenAI-shaped chunks, indexed tool calls
// streamed in pieces, usage when include_usage is asked.
// Source: https://lmstudio.ai/docs/app/api/tools (streaming tool calls), https://lmstudio.ai/docs/app/api/endpoints/openai.
export const lmstudio: Dialect = {
  name: "lmstudio",
  preset: "lmstudio",
  model: "qwen2.5-7b-instruct",
  sources: ["lmstudio.ai/docs/app/api/tools"],
  opts: { index: "position", args: "pieces", usage: "when-asked", streamError: "data-error", idPrefix: "" },
  refuse: () => null,
};
