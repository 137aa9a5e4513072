import "server-only";

// Hosts that stopped answering during a sync run. A page that timed out is not tried again (the next sync
// will), and once a host has let STALLS_PER_RUN requests of a run time out, the run's remaining pages of that
// host are recorded as failed without a request: a silent or trickling site would otherwise hold the sync for
// its time limit once per page. Kept per process (each instance learns it from its own requests), for the
// last runs only.

const STALLS_PER_RUN = 2;
const KEPT = 500;
const stalls = new Map<string, number>();

const keyOf = (runId: string, url: string) => `${runId} ${new URL(url).host}`;

export function noteStall(runId: string, url: string): void {
  const key = keyOf(runId, url);
  const count = (stalls.get(key) ?? 0) + 1;
  stalls.delete(key);
  stalls.set(key, count);
  if (stalls.size > KEPT) stalls.delete(stalls.keys().next().value!);
}

export function hostStalled(runId: string, url: string): boolean {
  return (stalls.get(keyOf(runId, url)) ?? 0) >= STALLS_PER_RUN;
}
