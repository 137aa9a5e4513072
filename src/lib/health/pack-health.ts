import "server-only";
import type { TenantTx } from "../db/client";
import { type RecentRun, recentPackRuns } from "../db/queries/health";

// A pack's health from its recent real runs (the visitor's turns, not the Test panel), so the Tools list and
// the Overview can say "failing" for a pack that fails on every call while everything looks configured.
// Runs the model got wrong (arguments refused, a tool name it invented) say nothing about the pack itself and
// are left out.

export type PackHealth = {
  packId: string;
  state: "ok" | "failing";
  /** Of the recent runs that count (newest first, at most ten within a week). */
  runs: number;
  failed: number;
  lastRunAt: Date;
  /** The newest failure's result as the model saw it, e.g. {"error":"the site answered 404"}. */
  lastError?: string;
  lastErrorAt?: Date;
  /** How many of the newest runs failed in a row, and when that streak began. */
  streak: number;
  failingSince?: Date;
};

const FAILED = new Set(["error", "timeout"]);
const COUNTS = new Set(["ok", "error", "timeout"]);

export function packHealthFrom(runs: readonly RecentRun[]): Map<string, PackHealth> {
  const byPack = new Map<string, RecentRun[]>();
  for (const r of runs) {
    if (!COUNTS.has(r.outcome)) continue;
    byPack.set(r.packId, [...(byPack.get(r.packId) ?? []), r]);
  }
  const out = new Map<string, PackHealth>();
  for (const [packId, list] of byPack) {
    const sorted = [...list].sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime());
    const firstOk = sorted.findIndex((r) => !FAILED.has(r.outcome));
    const streak = firstOk === -1 ? sorted.length : firstOk;
    const lastFailure = sorted.find((r) => FAILED.has(r.outcome));
    out.set(packId, {
      packId,
      state: streak > 0 ? "failing" : "ok",
      runs: sorted.length,
      failed: sorted.filter((r) => FAILED.has(r.outcome)).length,
      lastRunAt: sorted[0]!.createdAt,
      ...(lastFailure ? { lastError: lastFailure.result, lastErrorAt: lastFailure.createdAt } : {}),
      streak,
      ...(streak > 0 ? { failingSince: sorted[streak - 1]!.createdAt } : {}),
    });
  }
  return out;
}

/** In a tenant transaction: the health of every pack that ran recently. */
export async function readPackHealth(tx: TenantTx): Promise<Map<string, PackHealth>> {
  return packHealthFrom(await recentPackRuns(tx));
}
