import "server-only";
import type { StoredFigureCheck } from "@/shared/figure-check";
import type { ToolRunResult } from "@/shared/tool-run";
import type { DbHandle } from "../client";
import type { MessageRole, MessageStatus, SealedSecret } from "../schema";

// The two statements of a chat turn (src/lib/db/sql/turn-functions.sql), each one round trip through
// db.tenantCall: the functions enter the tenant themselves, so row-level security bounds them as in forTenant.

export type OpenTurnInput = {
  tenantId: string;
  visitorId: string;
  /** Absent: a new conversation is created. */
  conversationId?: string;
  origin: string;
  pageUrl: string;
  locale: string;
  message: string;
  /** A retry stores no new message and only reads the history. */
  retry: boolean;
  month: string;
  /** 0 = no budget. */
  budget: number;
  historyRows: number;
  /**
   * Rate-limit rows to take first, in the same statement (michi_take_rate_points): keys sorted, each with the points
   * to add, its window's end and its limit; `now` decides which windows have ended. Null: taken elsewhere.
   */
  limits: {
    rows: { key: string; points: number; expire: number | null; limit: number }[];
    now: number;
  } | null;
  /**
   * The version (xmin) of the tenant row the caller's checks used, when that row was remembered rather than
   * read for this request: the statement then refuses with 'stale' unless it is still the current row.
   */
  seen?: string | null;
};

export type OpenedPackRow = {
  packId: string;
  config: Record<string, unknown>;
  secrets: Record<string, SealedSecret>;
  updatedAt: string;
};

export type OpenedHistoryRow = {
  id: string;
  role: MessageRole;
  content: string;
  status: MessageStatus;
};

export type OpenTurnRow =
  | { refused: "budget" | "not_found" | "stale" }
  /** A retry while a person is asked for or has the conversation: nothing to answer again. */
  | { refused: "live"; state: "waiting" | "person" }
  | {
      refused?: undefined;
      /** Waiting for or talking with a person: the message is stored and in the live log at `seq`. */
      live: "waiting" | "person";
      conversationId: string;
      messageId: string;
      seq: number;
    }
  | { refused: "rate"; retryAfterSec: number }
  | {
      refused?: undefined;
      live?: undefined;
      conversationId: string;
      /** The conversation's live version as it opened (0 for a new one): michi_finish_turn checks it. */
      liveVersion: number;
      /** null on a retry. */
      messageId: string | null;
      /** Newest first; empty for a new conversation. */
      history: OpenedHistoryRow[];
      /** The tenant's enabled pack rows, as stored. */
      packs: OpenedPackRow[];
    };

export function openTurnRow(db: DbHandle, i: OpenTurnInput): Promise<OpenTurnRow> {
  const args = [
    i.visitorId,
    i.conversationId ?? null,
    i.origin,
    i.pageUrl,
    i.locale,
    i.message,
    i.retry,
    i.month,
    i.budget,
    i.historyRows,
    i.limits ? i.limits.rows.map((r) => r.key) : null,
    i.limits ? i.limits.rows.map((r) => r.points) : null,
    i.limits ? i.limits.rows.map((r) => r.expire) : null,
    i.limits ? i.limits.rows.map((r) => r.limit) : null,
    i.limits ? i.limits.now : null,
  ];
  return i.seen
    ? db.tenantCall<OpenTurnRow>("michi_open_turn_as_seen", i.tenantId, [i.seen, ...args])
    : db.tenantCall<OpenTurnRow>("michi_open_turn", i.tenantId, args);
}

export type FinishTurnInput = {
  tenantId: string;
  messageId: string;
  conversationId: string;
  content: string;
  status: MessageStatus;
  reason: string | null;
  model: string;
  promptTokens: number;
  completionTokens: number;
  usageEstimated: boolean;
  runs: (ToolRunResult & { callId: string })[];
  month: string;
  at: Date;
  /** The live version the turn opened with. */
  liveVersion: number;
  /** The figure check's verdict (null: off, or no figure stated). */
  figureCheck?: StoredFigureCheck | null;
};

/**
 * Stores the answer: 'duplicate' when a message with this id was stored already (a retried close),
 * 'superseded' when a person was asked for or took over since the turn opened (only the usage is counted).
 */
export type FinishOutcome = "stored" | "duplicate" | "superseded";

export function finishTurnRow(db: DbHandle, i: FinishTurnInput): Promise<FinishOutcome> {
  const runs = i.runs.map((r) => ({
    pack_id: r.packId,
    call_id: r.callId,
    args: r.args ?? null,
    result: r.result,
    result_chars: r.resultChars,
    duration_ms: r.durationMs,
    outcome: r.outcome,
  }));
  return db.tenantCall<FinishOutcome>("michi_finish_turn", i.tenantId, [
    i.messageId,
    i.conversationId,
    i.content,
    i.status,
    i.reason,
    i.model,
    i.promptTokens,
    i.completionTokens,
    i.usageEstimated,
    // pg would send a JS array as a Postgres array literal: jsonb needs the JSON text.
    JSON.stringify(runs),
    i.month,
    i.at,
    i.liveVersion,
    i.figureCheck ? JSON.stringify(i.figureCheck) : null,
  ]);
}
