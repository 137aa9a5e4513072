import { type Dialect, sentTools } from "./base";

// Ollama's /v1/chat/completions (openai/openai.go): each tool call whole in one delta; since 0.20 every call of
// a response carries index 0 with its own id; usage in a chunk when include_usage is asked; a model without
// tool support is refused with 400 "<model> does not support tools".
// Sources: ollama/ollama#15457 (all calls at index 0, v0.20.x), ollama/ollama#7881 (index missing before
// 0.4.7), vercel/ai#14277 (reproduction), ollama/ollama openai/openai.go (ToolCall, toChunk).
export const ollama: Dialect = {
  name: "ollama",
  preset: "ollama",
  model: "qwen2.5:7b",
  sources: ["ollama/ollama#15457", "ollama/ollama:openai/openai.go"],
  opts: { index: "zero", args: "whole", usage: "when-asked", streamError: "data-error", idPrefix: "call_" },
  refuse(body, flags) {
    if (flags.toolsOff && sentTools(body)) {
      return {
        status: 400,
        body: {
          error: {
            message: `registry.ollama.ai/library/${body.model} does not support tools`,
            type: "api_error",
            param: null,
            code: null,
          },
        },
      };
    }
    return null;
  },
};
