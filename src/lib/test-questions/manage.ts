import "server-only";
import { assertRole, auditedTx, type TenantContext } from "@/lib/auth/access";
import type { TenantTx } from "@/lib/db/client";
import {
  countTestQuestions,
  deleteTestQuestion as deleteRow,
  getTestQuestion,
  insertTestQuestions,
  listTestQuestions,
  updateTestQuestion as updateRow,
} from "@/lib/db/queries/test-questions";
import type { TestQuestionOrigin } from "@/lib/db/schema";
import { AppError } from "@/lib/errors";
import { isUuid } from "@/shared/parse";
import { fromCsv, toCsv } from "./csv";
import { parseQuestion, QUESTIONS_MAX, type QuestionInput } from "./input";
import { type SeedSource, seedsFrom } from "./seed";

// The Test questions page's changes: admins and owners only; viewers read the page, its runs and the export.

const notFound = () => new AppError("not_found", "This test question does not exist.");

async function addAll(
  tx: TenantTx,
  tenantId: string,
  rows: (QuestionInput & { origin: TestQuestionOrigin })[],
): Promise<number> {
  const room = QUESTIONS_MAX - (await countTestQuestions(tx));
  if (room <= 0) {
    throw new AppError("invalid_input", `A business can keep at most ${QUESTIONS_MAX} test questions.`);
  }
  return (await insertTestQuestions(tx, tenantId, rows.slice(0, room))).length;
}

/** Adds one question; `input` is what the form sent, checked here. */
export async function addTestQuestion(ctx: TenantContext, input: unknown): Promise<{ id: string }> {
  assertRole(ctx, "admin");
  const q = parseQuestion(input);
  return auditedTx(ctx, async (tx, record) => {
    if ((await countTestQuestions(tx)) >= QUESTIONS_MAX) {
      throw new AppError("invalid_input", `A business can keep at most ${QUESTIONS_MAX} test questions.`);
    }
    const [row] = await insertTestQuestions(tx, ctx.tenant.id, [{ ...q, origin: "manual" }]);
    if (!row) {
      throw new AppError("invalid_input", "This question is in the list already.", {
        fieldErrors: { question: ["This question is in the list already."] },
      });
    }
    await record("test_question.added", { target: row.id });
    return { id: row.id };
  });
}

export async function updateTestQuestion(
  ctx: TenantContext,
  id: string,
  input: unknown,
): Promise<{ changed: boolean }> {
  assertRole(ctx, "admin");
  const q = parseQuestion(input);
  if (!isUuid(id)) throw notFound();
  return auditedTx(ctx, async (tx, record) => {
    const row = await getTestQuestion(tx, id);
    if (!row) throw notFound();
    if (row.question === q.question && JSON.stringify(row.expect) === JSON.stringify(q.expect)) {
      return { changed: false };
    }
    try {
      await updateRow(tx, id, q);
    } catch (err) {
      if ((err as { code?: string }).code === "23505") {
        throw new AppError("invalid_input", "Another test question asks the same.", {
          fieldErrors: { question: ["Another test question asks the same."] },
        });
      }
      throw err;
    }
    await record("test_question.updated", { target: id });
    return { changed: true };
  });
}

export async function deleteTestQuestion(ctx: TenantContext, id: string): Promise<void> {
  assertRole(ctx, "admin");
  if (!isUuid(id)) throw notFound();
  await auditedTx(ctx, async (tx, record) => {
    if (!(await deleteRow(tx, id))) throw notFound();
    await record("test_question.deleted", { target: id });
  });
}

/** One click: questions from a source the business already has; those in the list already are skipped. */
export async function seedTestQuestions(ctx: TenantContext, from: SeedSource): Promise<{ added: number }> {
  assertRole(ctx, "admin");
  return auditedTx(ctx, async (tx, record) => {
    const seeds = await seedsFrom(tx, ctx.tenant.id, from);
    const added = seeds.length ? await addAll(tx, ctx.tenant.id, seeds) : 0;
    if (added) await record("test_question.seeded", { details: { from, added } });
    return { added };
  });
}

/** A CSV file's questions (./csv.ts); a bad row refuses the whole file, naming its line. */
export async function importTestQuestions(ctx: TenantContext, csv: string): Promise<{ added: number }> {
  assertRole(ctx, "admin");
  const rows = fromCsv(csv);
  return auditedTx(ctx, async (tx, record) => {
    const added = rows.length
      ? await addAll(
          tx,
          ctx.tenant.id,
          rows.map((r) => ({ ...r, origin: "csv" })),
        )
      : 0;
    if (added) await record("test_question.imported", { details: { added } });
    return { added };
  });
}

/** The list as CSV; read-only, so viewers may take it too. */
export async function exportTestQuestions(ctx: TenantContext): Promise<string> {
  const rows = await ctx.db.forTenant(ctx.tenant.id, (tx) => listTestQuestions(tx));
  return toCsv(rows);
}
