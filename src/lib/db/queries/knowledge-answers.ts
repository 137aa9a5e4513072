import "server-only";
import { desc, eq, sql } from "drizzle-orm";
import type { TenantTx } from "../client";
import { knowledgeAnswers } from "../schema";

// Answers a business wrote itself: one or more ways of asking, and the answer. Tenant transactions only.

export type AnswerRow = typeof knowledgeAnswers.$inferSelect;

export async function listAnswers(tx: TenantTx): Promise<AnswerRow[]> {
  return tx.select().from(knowledgeAnswers).orderBy(desc(knowledgeAnswers.createdAt));
}

export async function insertAnswer(
  tx: TenantTx,
  v: { tenantId: string; questions: string[]; answer: string; lang: string; createdBy: string | null },
): Promise<AnswerRow> {
  const [row] = await tx.insert(knowledgeAnswers).values(v).returning();
  return row!;
}

export async function deleteAnswer(tx: TenantTx, id: string): Promise<AnswerRow | null> {
  const [row] = await tx.delete(knowledgeAnswers).where(eq(knowledgeAnswers.id, id)).returning();
  return row ?? null;
}

export async function getAnswer(tx: TenantTx, id: string): Promise<AnswerRow | null> {
  const [row] = await tx.select().from(knowledgeAnswers).where(eq(knowledgeAnswers.id, id));
  return row ?? null;
}

export async function updateAnswer(
  tx: TenantTx,
  id: string,
  v: { questions: string[]; answer: string; lang: string },
): Promise<AnswerRow | null> {
  const [row] = await tx
    .update(knowledgeAnswers)
    .set({ ...v, updatedAt: sql`now()` })
    .where(eq(knowledgeAnswers.id, id))
    .returning();
  return row ?? null;
}
