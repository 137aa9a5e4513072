// The live bench's control phases (bench/live.ts): synthetic CPU in place of the live load, burnt where the
// live load burnt it, so the bot turns' service under it says what the live load's CPU alone would cost them.
import type { CpuShare } from "./lib/cpu-share";
import { cpuMs, readyMessage, spawnTracked, stopChild } from "./lib/procs";
import { type Host, post } from "./live-client";

/** CPU ms/s of the processes other than instance A that the live load runs in (B, Postgres, bench, world). */
export const outsideA = (c: CpuShare) => c.instanceB + c.postgres + c.benchClient + c.world;

/**
 * Runs `fn` while synthetic CPU burns: `onA` ms/s on instance A's own event loop (POST /bench/burn) and
 * `outside` ms/s between two processes (bench/lib/cpu-burn.mjs); returns what the two processes burnt.
 */
export async function withCpuBurn<T>(
  a: Host,
  burn: { onA: number; outside: number },
  fn: () => Promise<T>,
): Promise<[T, number]> {
  const burners = [0, 1].map(() =>
    spawnTracked("bench/lib/cpu-burn.mjs", [String(burn.outside / 2), "200"], {
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    }),
  );
  try {
    await Promise.all(burners.map((c) => readyMessage(c, "a CPU burner")));
    await post(`${a.url}/bench/burn?msPerSec=${burn.onA}`, {});
    const cpu = () => burners.reduce((sum, c) => sum + (cpuMs(c.pid) ?? 0), 0);
    const [t0, c0] = [performance.now(), cpu()];
    const out = await fn();
    return [out, ((cpu() - c0) * 1000) / (performance.now() - t0)];
  } finally {
    await post(`${a.url}/bench/burn?msPerSec=0`, {}).catch(() => {});
    await Promise.all(burners.map((c) => stopChild(c)));
  }
}
