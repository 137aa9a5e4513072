// What one tool call produced. The run wrapper returns it, the end of a turn stores it in tool_runs, and the
// transcript and the export read it back, so the shape is declared here once.

export type ToolOutcome = "ok" | "error" | "invalid_args" | "timeout" | "unknown_tool";

export type ToolRunResult = {
  packId: string;
  args: unknown;
  /** What the model was sent: projected and capped. */
  result: string;
  resultChars: number;
  resultTokens: number;
  durationMs: number;
  outcome: ToolOutcome;
};
