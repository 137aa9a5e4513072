import { type Dialect, openaiError } from "./base";

// OpenAI Chat Completions streaming: tool calls keyed by index, arguments in pieces after a name-only delta,
// usage in a separate chunk with empty choices only when stream_options.include_usage is set, then [DONE].
// Sources: https://platform.openai.com/docs/api-reference/chat-streaming (chunk object, stream_options);
// the gpt-5 / o-series refusal of max_tokens as quoted in langgenius/dify#24307, MuiseDestiny/zotero-gpt#464,
// griptape-ai/ComfyUI-Griptape#312 (400, param "max_tokens", code "unsupported_parameter").
export const openai: Dialect = {
  name: "openai",
  preset: "openai",
  model: "gpt-5-mini",
  sources: ["platform.openai.com/docs/api-reference/chat-streaming", "langgenius/dify#24307"],
  opts: {
    index: "position",
    args: "pieces",
    usage: "when-asked",
    streamError: "data-error",
    idPrefix: "call_",
  },
  refuse(body, flags) {
    if (body.max_tokens !== undefined && (/^(gpt-5|o\d)/.test(body.model) || flags.refuseMaxTokens)) {
      return openaiError(
        400,
        "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
        { param: "max_tokens", code: "unsupported_parameter" },
      );
    }
    return null;
  },
};
