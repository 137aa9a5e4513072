import { type Dialect, sentTools } from "./base";

// llama.cpp's llama-server (tools/server): OpenAI-style chunks with usage (and timings) on the final chunk;
// an error after the stream started is written as a non-standard `error: {...}` SSE field; without --jinja a
// request with tools is refused with 500 "tools param requires --jinja flag".
// Sources: defilantech/LLMKube#126 and containers/ramalama#988 (the 500 and its body), ggml-org/llama.cpp
// tools/server/server.cpp (stream error written as "error: " + json), ikawrakow/ik_llama.cpp#467 ([DONE]).
export const llamaServer: Dialect = {
  name: "llama-server",
  preset: "llama-server",
  model: "qwen2.5-7b-instruct-q4_k_m.gguf",
  sources: ["defilantech/LLMKube#126", "containers/ramalama#988", "ggml-org/llama.cpp:tools/server"],
  opts: {
    index: "position",
    args: "pieces",
    usage: "always-final",
    streamError: "error-field",
    idPrefix: "",
  },
  refuse(body, flags) {
    if (flags.toolsOff && sentTools(body)) {
      return {
        status: 500,
        body: { error: { code: 500, message: "tools param requires --jinja flag", type: "server_error" } },
      };
    }
    return null;
  },
};
