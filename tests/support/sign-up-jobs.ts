import { expect } from "vitest";
import { mailSignUpLink, SIGN_UP_MAIL_QUEUE } from "@/lib/accounts/pending-sign-up";
import type { DbHandle } from "@/lib/db/client";
import { listOutbox } from "@/lib/db/queries/outbox";
import { type JobQueue, setProcessQueue } from "@/lib/queue";

// Sign-up tests hold the queued jobs instead of running them, so a test can look at the database between
// the answer and the mail (nothing may differ there between a known and an unknown address) and then run
// the job itself, deterministically. The real worker is the same function (signUpMailWorkers).

export type HeldJob = { name: string; data: { id: string } };

export function holdJobs(): { jobs: HeldJob[]; release(): void } {
  const jobs: HeldJob[] = [];
  const send = async (name: string, data: object) => {
    jobs.push({ name, data: data as HeldJob["data"] });
    return String(jobs.length);
  };
  const q: JobQueue = { send, sendIn: (_tx, name, data) => send(name, data), stop: async () => {} };
  setProcessQueue(q);
  return { jobs, release: () => setProcessQueue(null) };
}

/** Runs and forgets every held sign-up mail job, as the queue's worker would. */
export async function runSignUpJobs(db: DbHandle, jobs: HeldJob[], now?: Date): Promise<void> {
  for (const job of jobs.splice(0)) {
    expect(job.name).toBe(SIGN_UP_MAIL_QUEUE);
    await mailSignUpLink(db, job.data, now);
  }
}

/** The sign-up mails kept for `to`, newest first. */
export async function signUpMailsTo(db: DbHandle, to: string) {
  return (await listOutbox(db.platform, 500)).filter((m) => m.toAddress === to && m.kind === "sign_up");
}

/** The confirmation token in a mail's text (the link's fragment). */
export function confirmTokenIn(text: string | null | undefined): string {
  const m = /\/signup\/confirm#([A-Za-z0-9_-]{43})\b/.exec(text ?? "");
  expect(m, `a confirmation link in: ${text}`).not.toBeNull();
  return m![1]!;
}

/** What changed per table between two snapshots: rows that appeared and rows that went, counted. */
export function changes(before: Record<string, string[]>, after: Record<string, string[]>) {
  const out: Record<string, { added: number; removed: number }> = {};
  for (const table of new Set([...Object.keys(before), ...Object.keys(after)])) {
    const b = new Set(before[table] ?? []);
    const a = new Set(after[table] ?? []);
    const added = [...a].filter((r) => !b.has(r)).length;
    const removed = [...b].filter((r) => !a.has(r)).length;
    if (added || removed) out[table] = { added, removed };
  }
  return out;
}
