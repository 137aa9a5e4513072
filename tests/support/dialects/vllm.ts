import { type Dialect, sentTools } from "./base";

// vLLM (vllm/entrypoints/openai/serving_chat.py): indexed tool calls, the name in a first delta with empty
// arguments and then argument pieces; usage chunk when include_usage is set. Without
// --enable-auto-tool-choice a request with tools is refused with 400 and a top-level error object.
// Sources: vllm-project/vllm#9986 and QwenLM/Qwen-Agent#344 (the exact refusal text),
// https://docs.vllm.ai/en/latest/features/tool_calling.html.
export const vllm: Dialect = {
  name: "vllm",
  preset: "vllm",
  model: "Qwen/Qwen2.5-7B-Instruct",
  sources: ["vllm-project/vllm#9986", "docs.vllm.ai/en/latest/features/tool_calling.html"],
  opts: {
    index: "position",
    args: "pieces",
    usage: "when-asked",
    streamError: "data-error",
    idPrefix: "chatcmpl-tool-",
  },
  refuse(body, flags) {
    if (flags.toolsOff && sentTools(body)) {
      return {
        status: 400,
        body: {
          object: "error",
          message: '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set',
          type: "BadRequestError",
          param: null,
          code: 400,
        },
      };
    }
    return null;
  },
};
