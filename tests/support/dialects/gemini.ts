import { type Dialect, openaiError } from "./base";

// Gemini's OpenAI-compatible endpoint (generativelanguage.googleapis.com/v1beta/openai/): tool-call deltas
// without `index`, each call whole in one delta, finish_reason "stop" even for tool calls; Gemini 3 attaches
// extra_content.google.thought_signature to the first call of a round and refuses a follow-up that does not
// send it back.
// Sources: https://ai.google.dev/gemini-api/docs/openai (function calling, extra_content),
// https://ai.google.dev/gemini-api/docs/thought-signatures, continuedev/continue#8865 (extra_content shape),
// ollama/ollama#7881 for the missing-index shape the same SDK helpers tripped on.
export const gemini: Dialect = {
  name: "gemini",
  preset: "gemini",
  model: "gemini-3-flash-preview",
  sources: ["ai.google.dev/gemini-api/docs/openai", "ai.google.dev/gemini-api/docs/thought-signatures"],
  opts: {
    index: "none",
    args: "whole",
    usage: "when-asked",
    thoughtSignature: true,
    toolFinish: "stop",
    streamError: "data-error",
    idPrefix: "function-call-",
  },
  refuse(body) {
    for (const m of body.messages) {
      // The first call of each round must come back with its signature.
      const first = m.tool_calls?.[0] as
        | { extra_content?: { google?: { thought_signature?: string } } }
        | undefined;
      if (first && !first.extra_content?.google?.thought_signature)
        return openaiError(400, "Function call is missing a thought_signature in functionCall parts.");
    }
    return null;
  },
};
