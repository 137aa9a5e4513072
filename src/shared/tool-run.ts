// What one tool call produced. The run wrapper returns it, the end of a turn stores it in tool_runs, and the
// transcript and the export read it back, so the shape is declared here once.

export type ToolOutcome = "ok" | "error" | "invalid_args" | "timeout" | "unknown_tool";

export type ToolRunResult = {
  packId: string;
  args: unknown;
  /** What the model was sent: projected and capped. */
  result: string;
  resultChars: number;
  durationMs: number;
  outcome: ToolOutcome;
};

/**
 * A run as read back. `resultTokens` is the token count of `result`: stored by turns before 2026-12-01, null
 * since then (counting on the visitor's turn cost CPU that nobody was waiting for; readers count on read).
 */
export type StoredToolRun = ToolRunResult & { resultTokens: number | null };
