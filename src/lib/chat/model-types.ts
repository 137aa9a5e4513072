import "server-only";
import type OpenAI from "openai";

// The shapes of one model call, shared by the client that makes it (model-call.ts), the loop that reads its
// result and the turn that builds its messages. They sit apart so those modules need not import each other.

export type ModelMessage = OpenAI.ChatCompletionMessageParam;
export type ToolCall = { id: string; name: string; arguments: string; extraContent?: unknown };
export type Usage = { promptTokens: number; completionTokens: number };

/** Why a model call ended early. */
export type ModelFault =
  | "model_busy" // 429 after our retries
  | "model_error" // 5xx or another refusal after retries
  | "model_timeout" // the whole call took longer than MICHI_MODEL_TIMEOUT_MS
  | "idle_timeout" // no chunk for MICHI_MODEL_IDLE_TIMEOUT_MS
  | "first_byte_timeout" // no answer at all within MICHI_MODEL_FIRST_BYTE_TIMEOUT_MS
  | "interrupted" // the connection broke mid-stream, or the stream ended without a finish reason or [DONE]
  | "length" // the provider stopped at the output limit (finish_reason "length")
  | "content_filter" // the provider's filter stopped the answer
  | "disconnected"; // the visitor went away

export type ModelResult = {
  text: string;
  /** Thinking text: never shown or stored, only echoed back within the turn where the provider needs it. */
  reasoning: string;
  toolCalls: ToolCall[];
  /** As reported by the provider; null when the stream ended before the usage chunk. */
  usage: Usage | null;
  /** Something was generated (text, thinking or a call): only then may unreported usage be estimated. */
  generated: boolean;
  fault: ModelFault | null;
  /** Set when the server refused tools and this call answered without them: the server's words. */
  toolsDropped?: string | null;
  /** The server's own refusal when the call ended on one (its HTTP status and words), for the operator. */
  failure?: { status: number; text: string } | null;
};
