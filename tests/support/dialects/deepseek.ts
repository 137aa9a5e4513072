import { type Dialect, openaiError } from "./base";

// DeepSeek: deepseek-reasoner (thinking mode) streams `reasoning_content` deltas before the answer. In thinking
// mode with tool calls the round's reasoning_content must be sent back with the assistant message inside the
// same turn, or the follow-up request is refused with 400.
// Sources: https://api-docs.deepseek.com/guides/thinking_mode ("Tool Calls" in thinking mode),
// https://api-docs.deepseek.com/guides/reasoning_model (reasoning_content in the stream).
export const deepseek: Dialect = {
  name: "deepseek",
  preset: "deepseek",
  model: "deepseek-reasoner",
  sources: ["api-docs.deepseek.com/guides/thinking_mode"],
  opts: {
    index: "position",
    args: "pieces",
    usage: "when-asked",
    reasoningField: "reasoning_content",
    streamError: "data-error",
    idPrefix: "call_00_",
  },
  refuse(body) {
    const lastUser = body.messages.map((m) => m.role).lastIndexOf("user");
    const missing = body.messages
      .slice(lastUser + 1)
      .some((m) => m.role === "assistant" && m.tool_calls?.length && !("reasoning_content" in m));
    if (missing) {
      return openaiError(
        400,
        "Missing `reasoning_content` field in the assistant message at message index 2.",
      );
    }
    return null;
  },
};
