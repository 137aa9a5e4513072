import { type ChildProcess, type SpawnOptions, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";

// Child processes of a bench run. Every one is tracked so that a failure, Ctrl-C or a normal end kills them
// all: the machine is shared and nothing may keep running after `npm run bench`.

export const ROOT = path.resolve(import.meta.dirname, "../..");
// react-server: server modules start with import "server-only", which throws under any other condition.
const TSX_LOADER = ["--conditions=react-server", "--import", "tsx"];

const children = new Set<ChildProcess>();
const cleanups: (() => Promise<unknown> | unknown)[] = [];

export function onCleanup(fn: () => Promise<unknown> | unknown): void {
  cleanups.push(fn);
}

export function spawnTracked(
  file: string,
  args: string[],
  opts: SpawnOptions & { ts?: boolean; nodeArgs?: string[] } = {},
) {
  const nodeArgs = [...(opts.nodeArgs ?? []), ...(opts.ts ? TSX_LOADER : []), file, ...args];
  const child = spawn(process.execPath, nodeArgs, { cwd: ROOT, ...opts });
  children.add(child);
  child.once("exit", () => children.delete(child));
  return child;
}

/** SIGTERM, then SIGKILL if the child has not gone within `graceMs`. */
export async function stopChild(child: ChildProcess, graceMs = 3000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
  await gone;
  clearTimeout(timer);
}

export async function cleanupAll(): Promise<void> {
  for (const fn of cleanups.splice(0).reverse()) {
    try {
      await fn();
    } catch (err) {
      console.error("bench: cleanup step failed:", (err as Error).message);
    }
  }
  await Promise.all([...children].map((c) => stopChild(c)));
}

// Last resort on an abrupt exit: never leave a server behind.
process.on("exit", () => {
  for (const c of children) if (c.exitCode === null) c.kill("SIGKILL");
});

/** A child that sends one IPC message when it is ready; rejects if it exits or stays silent. */
export function readyMessage<T>(child: ChildProcess, what: string, timeoutMs = 30_000): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${what} did not start within ${timeoutMs} ms`)),
      timeoutMs,
    );
    child.once("message", (m) => {
      clearTimeout(timer);
      resolve(m as T);
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`${what} exited early (code ${code})`));
    });
  });
}

/** Resident memory of a process in KiB, from /proc (Linux only; null elsewhere). */
export function rssKb(pid: number | undefined): number | null {
  if (!pid) return null;
  try {
    const m = /VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) : null;
  } catch {
    return null;
  }
}

/**
 * CPU time (user + system) a process has used so far, in ms, from /proc/<pid>/stat. Less noisy than wall
 * time on a shared machine: other engineers' load delays a turn but does not make it cost more CPU.
 * Assumes USER_HZ = 100, as on every Linux distribution.
 */
export function cpuMs(pid: number | undefined): number | null {
  if (!pid) return null;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command name (which may contain spaces) start after the last ")".
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return null;
  }
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
