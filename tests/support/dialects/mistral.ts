import type { Dialect, Refusal } from "./base";

// Mistral (api.mistral.ai): a pydantic schema that forbids unknown fields, so stream_options,
// max_completion_tokens and an assistant's reasoning_content are each refused with 422 extra_forbidden. Tool
// calls arrive whole in one delta; usage comes on the last chunk without being asked.
// Sources: dnakov/anon-kode#53 (422 for stream_options.include_usage), editor-code-assistant/eca#231 (422 for
// max_completion_tokens), charmbracelet/crush#1590 (422 for reasoning_content), 64bit/async-openai#329
// (arguments streamed together with id and name).
const forbidden = (loc: (string | number)[], input: unknown): Refusal => ({
  status: 422,
  body: {
    object: "error",
    message: {
      detail: [
        { type: "extra_forbidden", loc: ["body", ...loc], msg: "Extra inputs are not permitted", input },
      ],
    },
    type: "invalid_request_error",
    param: null,
    code: null,
  },
});

export const mistral: Dialect = {
  name: "mistral",
  preset: "mistral",
  model: "mistral-small-latest",
  sources: ["dnakov/anon-kode#53", "editor-code-assistant/eca#231", "charmbracelet/crush#1590"],
  opts: { index: "position", args: "whole", usage: "always-final", streamError: "data-error", idPrefix: "" },
  refuse(body) {
    if (body.stream_options) return forbidden(["stream_options", "include_usage"], true);
    if (body.max_completion_tokens !== undefined)
      return forbidden(["max_completion_tokens"], body.max_completion_tokens);
    const i = body.messages.findIndex((m) => m.role === "assistant" && "reasoning_content" in m);
    if (i >= 0) return forbidden(["messages", i, "assistant", "reasoning_content"], "");
    return null;
  },
};
