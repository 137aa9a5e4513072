import "server-only";
import type { DbHandle } from "../db";
import { getOwnTenant } from "../db/queries/tenants";
import { monthUsage, usageMonth } from "../db/queries/usage";
import type { TenantRateLimits } from "../db/schema";
import { env } from "../env";
import { AppError } from "../errors";
import { processSlot } from "../process-slot";
import { type LimitRow, limiter, limitsForStatement, takeAll } from "../security/rate-limit";

export type LimitSettings = {
  visitorPerMin: number;
  ipPerMin: number;
  tenantPerMin: number;
  maxStreams: number;
};

type EnvLimits = {
  MICHI_RATE_VISITOR_PER_MIN: number;
  MICHI_RATE_IP_PER_MIN: number;
  MICHI_RATE_TENANT_PER_MIN: number;
  MICHI_MAX_STREAMS_PER_TENANT: number;
};

/** The operator's defaults, with the tenant's own overrides where set. */
export function limitSettings(e: EnvLimits, own: TenantRateLimits | null | undefined): LimitSettings {
  const pick = (v: number | undefined, fallback: number) =>
    typeof v === "number" && Number.isInteger(v) && v > 0 ? v : fallback;
  return {
    visitorPerMin: pick(own?.visitorPerMin, e.MICHI_RATE_VISITOR_PER_MIN),
    ipPerMin: pick(own?.ipPerMin, e.MICHI_RATE_IP_PER_MIN),
    tenantPerMin: pick(own?.tenantPerMin, e.MICHI_RATE_TENANT_PER_MIN),
    maxStreams: pick(own?.maxStreams, e.MICHI_MAX_STREAMS_PER_TENANT),
  };
}

const BUSY = "You're sending messages a little fast. Please wait a moment and try again.";

/** The refusal a visitor sees when a limit is reached, with the longest wait of the limits. */
export function rateLimited(retryAfterSec: number): AppError {
  return new AppError("rate_limited", BUSY, { retryAfterSec });
}

export type ChatKeys = { tenantId: string; visitorId: string; ip: string };

function chatLimiters(s: LimitSettings, keys: ChatKeys) {
  return [
    {
      spec: { keyPrefix: "chat_visitor", points: s.visitorPerMin, durationSec: 60 },
      key: `${keys.tenantId}:${keys.visitorId}`,
    },
    {
      spec: { keyPrefix: "chat_ip", points: s.ipPerMin, durationSec: 60 },
      key: `${keys.tenantId}:${keys.ip}`,
    },
    { spec: { keyPrefix: "chat_tenant", points: s.tenantPerMin, durationSec: 60 }, key: keys.tenantId },
  ];
}

/** Takes one point per visitor, per IP and per tenant; refuses with 429 and the longest wait. */
export async function takeRatePoints(s: LimitSettings, keys: ChatKeys): Promise<void> {
  // One statement for the three on Postgres (takeAll).
  const wait = await takeAll(chatLimiters(s, keys));
  if (wait) throw rateLimited(wait);
}

/**
 * The chat's limits as rows for the statement that opens the turn (michi_open_turn takes them first, in the
 * same round trip), or null when the store cannot take them there (Redis, memory): then takeRatePoints.
 */
export function ratePointsForTurn(s: LimitSettings, keys: ChatKeys): Promise<TurnLimits | null> {
  return limitsForStatement(chatLimiters(s, keys));
}

export type TurnLimits = { rows: LimitRow[]; now: number };

/** Session tokens are cheap to ask for; bound them per IP so they cannot be minted in bulk. */
export async function takeSessionPoint(s: LimitSettings, tenantId: string, ip: string): Promise<void> {
  const wait = await limiter({ keyPrefix: "widget_session_ip", points: s.ipPerMin, durationSec: 60 }).take(
    `${tenantId}:${ip}`,
  );
  if (wait) throw rateLimited(wait);
}

// Open streams per tenant. This counter is per process: with several instances the cap applies to each one
// (documented in docs/chat-engine.md). It lives on globalThis, like the other per-process singletons.
const streams = processSlot<Map<string, number>>("Streams");

/** Reserves a stream slot; the returned function frees it (idempotent). */
export function acquireStreamSlot(tenantId: string, max: number): () => void {
  const open = streams.use(() => new Map());
  const n = open.get(tenantId) ?? 0;
  if (n >= max) {
    throw new AppError(
      "rate_limited",
      "Lots of people are chatting right now. Please try again in a moment.",
      {
        retryAfterSec: 5,
      },
    );
  }
  open.set(tenantId, n + 1);
  let freed = false;
  return () => {
    if (freed) return;
    freed = true;
    const left = (open.get(tenantId) ?? 1) - 1;
    if (left <= 0) open.delete(tenantId);
    else open.set(tenantId, left);
  };
}

export function openStreams(tenantId: string): number {
  return streams.get()?.get(tenantId) ?? 0;
}

export type BudgetStatus = {
  month: string;
  /** null: no budget (the tenant's override and the operator default are both 0). */
  limit: number | null;
  used: number;
  remaining: number | null;
  exhausted: boolean;
};

/** The budget figures from the month's usage and the budget setting in force (0 = no budget). */
export function budgetFrom(month: string, budget: number, used: number): BudgetStatus {
  const limit = budget > 0 ? budget : null;
  return {
    month,
    limit,
    used,
    remaining: limit === null ? null : Math.max(0, limit - used),
    exhausted: limit !== null && used >= limit,
  };
}

/**
 * The tenant's token budget this UTC month: its own `monthly_token_budget`, else the operator's
 * MICHI_DEFAULT_MONTHLY_TOKENS. 0 means "no budget". A turn that starts under budget may end a little over it.
 * The admin overview reads the tenant row here; a chat turn already has it from the guard and checks the
 * usage inside the transaction that stores the visitor's message (openTurn), one round trip fewer.
 */
export async function budgetStatus(
  db: DbHandle,
  tenantId: string,
  opts: { defaultBudget?: number; now?: Date } = {},
): Promise<BudgetStatus> {
  const month = usageMonth(opts.now);
  const defaultBudget = opts.defaultBudget ?? env().MICHI_DEFAULT_MONTHLY_TOKENS;
  return db.forTenant(tenantId, async (tx) => {
    const tenant = await getOwnTenant(tx, tenantId);
    const usage = await monthUsage(tx, tenantId, month);
    return budgetFrom(month, tenant?.monthlyTokenBudget ?? defaultBudget, usage.totalTokens);
  });
}

export function budgetExhausted(): AppError {
  return new AppError(
    "budget_exhausted",
    "The chat assistant is unavailable right now. Please contact the business directly.",
    { retryAfterSec: 3600 },
  );
}
