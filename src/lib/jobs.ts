// Periodic work started once per process after boot (retention purge and the like register here).
import "server-only";
import { processSlot } from "./process-slot";

type Job = { name: string; everyMs: number; run: () => Promise<void> };

const timers = processSlot<NodeJS.Timeout[]>("Jobs");
const jobs: Job[] = [];

export function registerJob(job: Job) {
  jobs.push(job);
}

export function startBackgroundJobs() {
  if (timers.get()) return;
  timers.set(
    jobs.map((job) => {
      void job.run().catch(() => {});
      const t = setInterval(() => void job.run().catch(() => {}), job.everyMs);
      t.unref();
      return t;
    }),
  );
}
