import { type Dialect, openaiError } from "./base";

// Azure OpenAI (v1 API, https://<resource>.openai.azure.com/openai/v1/): the OpenAI stream plus a first chunk
// with empty choices carrying prompt_filter_results, and finish_reason "content_filter" with
// content_filter_results when the output filter stops an answer.
// Sources: https://learn.microsoft.com/azure/ai-foundry/openai/concepts/content-filter (streaming example,
// finish_reason content_filter); anomalyco/opencode#37964 (gpt-5.1 on Azure refuses max_tokens).
export const azure: Dialect = {
  name: "azure",
  preset: "azure",
  model: "gpt-5.1",
  sources: [
    "learn.microsoft.com/azure/ai-foundry/openai/concepts/content-filter",
    "anomalyco/opencode#37964",
  ],
  opts: {
    index: "position",
    args: "pieces",
    usage: "when-asked",
    promptFilterChunk: true,
    streamError: "data-error",
    idPrefix: "call_",
  },
  refuse(body) {
    if (body.max_tokens !== undefined) {
      return openaiError(
        400,
        "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
        { param: "max_tokens", code: "unsupported_parameter" },
      );
    }
    return null;
  },
};
