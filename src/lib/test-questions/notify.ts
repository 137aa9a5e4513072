import "server-only";
import type { DbHandle, TenantTx } from "@/lib/db/client";
import { listMembers } from "@/lib/db/queries/members";
import type { TestResultRow, TestRunRow } from "@/lib/db/queries/test-questions";
import { resultsOfRun } from "@/lib/db/queries/test-questions";
import { env } from "@/lib/env";
import type { Logger } from "@/lib/log";
import { isMailAddress, sendMail } from "@/lib/mail/send";
import { publishEvent } from "@/lib/webhooks/publish";
import { runHeadline } from "./headline";

// Telling the business a run ended: the `test_run.completed` webhook, published in the transaction that ends
// the run (so it goes once, and survives a restart), and a mail to the owners when a question that passed
// before now fails, sent after that commit.

type Tenant = { id: string; slug: string; name: string };

const runUrl = (t: Tenant, run: TestRunRow) =>
  `${env().MICHI_PUBLIC_URL}/admin/${t.slug}/tests/runs/${run.id}`;

/** test_run.completed's data (docs/webhooks.md): counts and the questions that changed, never a setting. */
export function runPayload(t: Tenant, run: TestRunRow, results: TestResultRow[]) {
  return {
    run: {
      id: run.id,
      triggers: run.triggers,
      mode: run.mode,
      startedAt: run.startedAt?.toISOString() ?? null,
      finishedAt: run.finishedAt?.toISOString() ?? null,
      total: run.total,
      passed: run.passed,
      failed: run.failed,
      changed: run.changed,
      nowFailing: run.nowFailing,
      capped: run.capped,
      headline: runHeadline(run, run.capped),
      adminUrl: runUrl(t, run),
    },
    results: results
      .filter((r) => !r.pass || r.changes.length > 0)
      .slice(0, 50)
      .map((r) => ({
        questionId: r.questionId,
        question: r.question,
        pass: r.pass,
        wasPass: r.wasPass,
        changes: r.changes,
        reasons: r.reasons,
      })),
  };
}

export const runCompleted = {
  async events(tx: TenantTx, t: Tenant, run: TestRunRow, results: TestResultRow[]): Promise<void> {
    await publishEvent(tx, {
      tenantId: t.id,
      type: "test_run.completed",
      data: runPayload(t, run, results),
      dedupeKey: `test-run:${run.id}`,
    });
  },

  /** One mail per owner when a question that passed now fails; never throws (the run is stored). */
  async mail(db: DbHandle, t: Tenant, run: TestRunRow, log: Logger): Promise<void> {
    if (run.nowFailing === 0) return;
    try {
      const { owners, broken } = await db.forTenant(t.id, async (tx) => ({
        owners: (await listMembers(tx, t.id)).filter((m) => m.role === "owner").map((m) => m.email),
        broken: (await resultsOfRun(tx, run.id)).filter((r) => !r.pass && r.wasPass),
      }));
      const subject = `${t.name}: ${broken.length === 1 ? "a test question now fails" : `${broken.length} test questions now fail`}`;
      const text = [
        `A run of ${t.name}'s test questions found answers that passed before and fail now.`,
        runHeadline(run, run.capped),
        "",
        ...broken.slice(0, 20).flatMap((r) => [`“${r.question}”`, ...r.reasons.map((x) => `  - ${x}`), ""]),
        `See the run: ${runUrl(t, run)}`,
      ].join("\n");
      for (const to of new Set(owners.filter(isMailAddress))) {
        await sendMail({
          to,
          subject: subject.replace(/[\r\n]+/g, " ").slice(0, 200),
          text,
          kind: "test_run",
          tenantId: t.id,
        });
      }
    } catch (err) {
      log.warn({ err, runId: run.id }, "could not send the test run mail");
    }
  },
};
