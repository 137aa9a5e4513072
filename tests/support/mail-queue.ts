import { passwordResetWorkers } from "@/lib/accounts/password-reset";
import { signUpMailWorkers } from "@/lib/accounts/pending-sign-up";
import type { DbHandle } from "@/lib/db/client";
import { leadMailWorkers } from "@/lib/leads/notify";
import { type JobQueue, setProcessQueue, startQueue } from "@/lib/queue";

// The mail jobs of the durable queue for integration tests: the real pg-boss workers on the test database,
// polling twice a second with a backoff of about a second, installed as the process's queue.
export async function startTestMailQueue(db: DbHandle): Promise<JobQueue> {
  const workers = [...passwordResetWorkers(db), ...signUpMailWorkers(db), ...leadMailWorkers(db)];
  const q = await startQueue(db, {
    workers,
    pollingIntervalSeconds: 0.5,
    policies: Object.fromEntries(
      workers.map((w) => [w.name, { retryLimit: 2, retryDelaySeconds: 1, expireInSeconds: 30 }]),
    ),
  });
  setProcessQueue(q);
  return {
    ...q,
    async stop() {
      setProcessQueue(null);
      await q.stop();
    },
  };
}
