import { createServer } from "node:net";

// Ports for test servers that must know their own address before they listen (the production server needs
// MICHI_PUBLIC_URL at start-up, so port 0 is not an option for it). Everything else listens on port 0.
//
// Linux hands out outgoing (ephemeral) ports from 32768–60999 (net.ipv4.ip_local_port_range), so any fixed
// port there can be taken at random by Chromium, pg or the fake model's clients. Below 32768 only explicit
// listeners compete, and those are caught by retrying on EADDRINUSE.

const LOW = 20_000;
const HIGH = 32_767;
const ATTEMPTS = 25;

export function isAddrInUse(err: unknown): boolean {
  return (
    !!err &&
    typeof err === "object" &&
    ((err as { code?: unknown }).code === "EADDRINUSE" || /EADDRINUSE/.test(String((err as Error).message)))
  );
}

/** True when nobody listens on `port` at `host` right now (a cheap check before an expensive start). */
function looksFree(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once("error", () => resolve(false));
    s.listen(port, host, () => s.close(() => resolve(true)));
  });
}

/**
 * Calls `start(port)` with a random port below the ephemeral range until it does not fail with EADDRINUSE.
 * `start` must reject with an EADDRINUSE error (code or message) when the port was taken under it.
 */
export async function onLowPort<T>(start: (port: number) => Promise<T>, host = "127.0.0.1"): Promise<T> {
  let last: unknown;
  for (let i = 0; i < ATTEMPTS; i++) {
    const port = LOW + Math.floor(Math.random() * (HIGH - LOW + 1));
    if (!(await looksFree(port, host))) continue;
    try {
      return await start(port);
    } catch (err) {
      if (!isAddrInUse(err)) throw err;
      last = err;
    }
  }
  throw new Error(`no free port below 32768 after ${ATTEMPTS} attempts`, { cause: last });
}
