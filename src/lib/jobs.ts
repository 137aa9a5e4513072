// Periodic work started once per process after boot (retention purge and the like register here).
import "server-only";

type Job = { name: string; everyMs: number; run: () => Promise<void> };

const g = globalThis as unknown as { __michiJobs?: NodeJS.Timeout[] };
const jobs: Job[] = [];

export function registerJob(job: Job) {
  jobs.push(job);
}

export function startBackgroundJobs() {
  if (g.__michiJobs) return;
  g.__michiJobs = jobs.map((job) => {
    void job.run().catch(() => {});
    const t = setInterval(() => void job.run().catch(() => {}), job.everyMs);
    t.unref();
    return t;
  });
}
