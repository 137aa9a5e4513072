import { readdirSync, readFileSync } from "node:fs";
import { cpuMs } from "./procs";

// Where a phase's CPU went, by process: the instances, the Postgres backends of the bench's own database, the
// bench process itself (its stream readers, appenders and bot visitors), the world process (fake model and
// fixture site), and the rest of the machine (other users, Postgres's shared background processes). On a
// shared 2-core machine a rate alone cannot tell "the platform got slower" from "something else took the
// cores"; CPU per process can. Linux only (/proc); elsewhere every figure is 0.

type Named = "instanceA" | "instanceB" | "world";
export type CpuGroups = {
  /** The instances and the world process, by pid. */
  pids: Record<Named, number | undefined>;
  /** Postgres backends whose command line names this database (`postgres: … <user> <db> <addr> …`). */
  database: string;
};

export type CpuShare = Record<Named, number> & {
  postgres: number;
  benchClient: number;
  other: number;
  idle: number;
};

type Snapshot = {
  at: number;
  named: Record<Named, number>;
  pg: Map<number, number>;
  self: number;
  machine: { busy: number; idle: number };
};

/** Busy and idle CPU time of the whole machine so far, in ms (/proc/stat, USER_HZ = 100). */
function machineMs(): { busy: number; idle: number } {
  try {
    const line = readFileSync("/proc/stat", "utf8").split("\n", 1)[0]!;
    const [user, nice, system, idle, iowait, irq, softirq, steal] = line
      .trim()
      .split(/\s+/)
      .slice(1)
      .map(Number) as number[];
    return {
      busy: (user! + nice! + system! + irq! + softirq! + steal!) * 10,
      idle: (idle! + iowait!) * 10,
    };
  } catch {
    return { busy: 0, idle: 0 };
  }
}

function backends(database: string): Map<number, number> {
  const out = new Map<number, number>();
  let dirs: string[];
  try {
    dirs = readdirSync("/proc");
  } catch {
    return out;
  }
  for (const d of dirs) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const cmd = readFileSync(`/proc/${d}/cmdline`, "utf8");
      // A backend retitles itself "postgres: <cluster>: <user> <database> <client> <state>".
      if (!cmd.startsWith("postgres: ") || !cmd.split(/[\s\0]+/).includes(database)) continue;
      const ms = cpuMs(Number(d));
      if (ms !== null) out.set(Number(d), ms);
    } catch {
      // gone between the listing and the read
    }
  }
  return out;
}

function snapshot(groups: CpuGroups): Snapshot {
  const named = {} as Record<Named, number>;
  for (const [name, pid] of Object.entries(groups.pids) as [Named, number | undefined][])
    named[name] = cpuMs(pid) ?? 0;
  const u = process.cpuUsage();
  return {
    at: performance.now(),
    named,
    pg: backends(groups.database),
    self: (u.user + u.system) / 1000,
    machine: machineMs(),
  };
}

/**
 * Runs `fn` and returns its result with the CPU each group used per second of wall time over it (ms/s; the
 * machine has cores × 1000 to give). A backend that ended during the phase is missed (the bench's pools keep
 * theirs open); one that began in it counts whole.
 */
export async function measureCpu<T>(groups: CpuGroups, fn: () => Promise<T>): Promise<[T, CpuShare]> {
  const a = snapshot(groups);
  const out = await fn();
  const b = snapshot(groups);
  const secs = (b.at - a.at) / 1000;
  const per = (ms: number) => Math.round((ms / secs) * 10) / 10;
  const share: Record<string, number> = {};
  let ours = 0;
  for (const name of Object.keys(groups.pids) as Named[]) {
    const ms = b.named[name] - a.named[name];
    ours += ms;
    share[name] = per(ms);
  }
  let pg = 0;
  for (const [pid, ms] of b.pg) pg += ms - (a.pg.get(pid) ?? 0);
  const self = b.self - a.self;
  ours += pg + self;
  share.postgres = per(pg);
  share.benchClient = per(self);
  share.other = per(Math.max(0, b.machine.busy - a.machine.busy - ours));
  share.idle = per(b.machine.idle - a.machine.idle);
  return [out, share as CpuShare];
}

/** The process groups whose CPU a live message or a bot turn can cost (not `other` or `idle`). */
const OURS = ["instanceA", "instanceB", "world", "postgres", "benchClient"] as const;
type Ours = (typeof OURS)[number];
export type ByGroup = Record<Ours | "total", number>;

/**
 * How much of the bot turns' drop during the live load each process explains. The live load's CPU by process
 * is measured alone (held streams and traffic, no bot turns: `liveAlone`), and each process's CPU per bot turn
 * from the phases with bot turns alone (before, after). At saturation of cores that are ours alone, each ms/s
 * the live load takes is a ms/s the bot turns cannot have: `turnsDisplaced` = the live load's CPU / a bot
 * turn's CPU, to be read beside the turns actually lost. (Subtracting the bot turns' expected CPU from the
 * combined phase instead is unreliable: at a higher rate a turn costs less, as more work shares each wake-up.)
 */
export function attributeDrop(phases: {
  before: { cpu: CpuShare; turnsPerSec: number };
  liveAlone: CpuShare;
  during: { turnsPerSec: number };
  after: { cpu: CpuShare; turnsPerSec: number };
}) {
  const r1 = (v: number) => Math.round(v * 10) / 10;
  const perTurn = {} as ByGroup;
  const live = {} as ByGroup;
  perTurn.total = 0;
  live.total = 0;
  for (const g of OURS) {
    const b = (phases.before.cpu[g] ?? 0) / phases.before.turnsPerSec;
    const a = (phases.after.cpu[g] ?? 0) / phases.after.turnsPerSec;
    perTurn[g] = (a + b) / 2;
    live[g] = phases.liveAlone[g] ?? 0;
    perTurn.total += perTurn[g];
    live.total += live[g];
  }
  const lost = (phases.before.turnsPerSec + phases.after.turnsPerSec) / 2 - phases.during.turnsPerSec;
  const share = (v: number) => (live.total > 0 ? Math.round((v / live.total) * 100) / 100 : 0);
  return {
    /** ms of CPU per bot turn, by process. */
    cpuMsPerBotTurn: Object.fromEntries(
      Object.entries(perTurn).map(([k, v]) => [k, Math.round(v * 100) / 100]),
    ),
    /** ms/s of CPU the live load takes alone, by process. */
    liveCpuMsPerSec: Object.fromEntries(Object.entries(live).map(([k, v]) => [k, r1(v)])),
    /** Bot turns/s that CPU would have served. */
    turnsDisplaced: r1(live.total / perTurn.total),
    /** Bot turns/s actually lost (mean of before and after, minus during). */
    turnsLost: r1(lost),
    /** The live load's CPU by side: the platform's (instances and their Postgres backends) and the bench's. */
    share: {
      platform: share(live.instanceA + live.instanceB + live.postgres),
      benchClient: share(live.benchClient),
      world: share(live.world),
    },
  };
}
