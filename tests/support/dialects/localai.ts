import type { Dialect } from "./base";

// LocalAI: the same tool call is emitted at more than one index with the same id, and reasoning arrives under
// `reasoning`. Sources: mudler/LocalAI#9722 (same tool_call at multiple index values, merge by id),
// sigoden/aichat#580 (LocalAI tool-call chunks).
export const localai: Dialect = {
  name: "localai",
  preset: "localai",
  model: "qwen3-4b",
  sources: ["mudler/LocalAI#9722", "sigoden/aichat#580"],
  opts: {
    index: "position",
    args: "whole",
    repeatAtNextIndex: true,
    usage: "always-final",
    reasoningField: "reasoning",
    streamError: "data-error",
    idPrefix: "",
  },
  refuse: () => null,
};
