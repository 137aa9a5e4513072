import type { Dialect } from "./base";

// Groq: OpenAI-style chunks; usage is reported under `x_groq.usage` on the final chunk.
// Sources: https://console.groq.com/docs/api-reference#chat-create (max_completion_tokens, stream),
// https://console.groq.com/docs/tool-use (parallel tool use).
export const groq: Dialect = {
  name: "groq",
  preset: "groq",
  model: "llama-3.3-70b-versatile",
  sources: ["console.groq.com/docs/api-reference", "console.groq.com/docs/tool-use"],
  opts: { index: "position", args: "whole", usage: "x_groq", streamError: "data-error", idPrefix: "call_" },
  refuse: () => null,
};
