import "server-only";
import { and, eq, sql } from "drizzle-orm";
import type { TenantTx } from "../client";
import { usageMonthly } from "../schema";

/** Budgets run per calendar month in UTC: "2025-03". */
export function usageMonth(at: Date = new Date()): string {
  return at.toISOString().slice(0, 7);
}

export async function addUsage(
  tx: TenantTx,
  input: {
    tenantId: string;
    month: string;
    promptTokens: number;
    completionTokens: number;
    estimatedTokens?: number;
  },
) {
  if (input.promptTokens <= 0 && input.completionTokens <= 0) return;
  await tx
    .insert(usageMonthly)
    .values(input)
    .onConflictDoUpdate({
      target: [usageMonthly.tenantId, usageMonthly.month],
      set: {
        promptTokens: sql`${usageMonthly.promptTokens} + ${input.promptTokens}`,
        completionTokens: sql`${usageMonthly.completionTokens} + ${input.completionTokens}`,
        estimatedTokens: sql`${usageMonthly.estimatedTokens} + ${input.estimatedTokens ?? 0}`,
      },
    });
}

export async function monthUsage(tx: TenantTx, tenantId: string, month: string) {
  const [row] = await tx
    .select()
    .from(usageMonthly)
    .where(and(eq(usageMonthly.tenantId, tenantId), eq(usageMonthly.month, month)))
    .limit(1);
  const promptTokens = row?.promptTokens ?? 0;
  const completionTokens = row?.completionTokens ?? 0;
  return { month, promptTokens, completionTokens, totalTokens: promptTokens + completionTokens };
}
