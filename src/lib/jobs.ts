// Periodic work started once per process after boot (retention purge and the like register here).
import "server-only";
import { processSlot } from "./process-slot";

type Job = {
  name: string;
  everyMs: number;
  run: () => Promise<void>;
  /** False for a check that has nothing to find in a process that just started (its first run is one period on). */
  runAtStart?: boolean;
};

const timers = processSlot<NodeJS.Timeout[]>("Jobs");
const jobs: Job[] = [];

export function registerJob(job: Job) {
  jobs.push(job);
}

export function startBackgroundJobs() {
  if (timers.get()) return;
  timers.set(
    jobs.map((job) => {
      if (job.runAtStart !== false) void job.run().catch(() => {});
      const t = setInterval(() => void job.run().catch(() => {}), job.everyMs);
      t.unref();
      return t;
    }),
  );
}
