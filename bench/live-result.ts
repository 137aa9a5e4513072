// The live bench's result (bench/live.ts), as bench/results.json holds it and bench/live-report.ts prints it.
import type { attributeDrop, CpuShare } from "./lib/cpu-share";
import type { LoopStats, OpenLoop } from "./live-client";
import type { Hops } from "./live-hops";
import type { Delivery } from "./live-traffic";

export type LiveResult = {
  conversations: number;
  consoles: number;
  openSeconds: number;
  rssIdleMb: number | null;
  rssHeldMb: number | null;
  /** Live heap (+ buffers) after a full collection, held minus idle, per conversation. */
  kbPerConversation: number;
  /** The same from resident memory, which the heap's growth policy makes noisier. */
  rssKbPerConversation: number;
  oneInstance: Delivery;
  /** One instance again, while bot conversations run on it flat out (chatTurnsPerSec.during). */
  underBotLoad: Delivery;
  twoInstances: Delivery;
  /** Closed-loop bot turns (10 visitors) on instance A: before, during and after the live load; ratio = during / mean. */
  /** synthetic: the same while synthetic CPU stands in for the live load (the control); its ratio likewise. */
  chatTurnsPerSec: {
    before: number;
    during: number;
    after: number;
    ratio: number;
    /** With every conversation held and no live traffic; heldRatio against the mean of before and after. */
    held: number;
    heldRatio: number;
    synthetic: number;
    syntheticRatio: number;
  };
  messagesPerSec: number;
  /** Instance A's CPU per live message (its append and both deliveries), one instance, no bot turns. */
  cpuMsPerLiveMessage: number;
  /**
   * Statements instance A sent to Postgres per live message (the append's transaction and the streams'
   * reads), with the held streams' own (queriesPerSecondHeld) taken out; and per bot turn. Counted: no noise.
   */
  queriesPerLiveMessage: number;
  queriesPerSecondHeld: number;
  queriesPerBotTurn: number;
  /**
   * Appends on instance B, all streams on A: A's CPU and statements per message are the transport's own
   * (wake-up, read, SSE writes); B's CPU per message is the appends' (the bench's stand-in for a use case).
   */
  transportOnly: {
    cpuMsPerMessage: number;
    queriesPerMessage: number;
    appendCpuMsPerMessage: number;
    delivery: Delivery;
  };
  /** Instance A's CPU per second with every stream held and no traffic (heartbeats, re-reads). */
  cpuMsPerSecondHeld: number;
  /** Instance A's CPU per bot turn without the live load, before and after it. */
  cpuMsPerBotTurn: { before: number; after: number };
  /** Instance A's CPU over the phase with both bot turns and live traffic. */
  cpuMsDuring: number;
  /** CPU ms per second of each process (instances, Postgres backends, bench client, world, rest) per phase. */
  cpuShare: Record<string, CpuShare>;
  /** Instance A's event-loop delay (ms late: p50, p99, max) and GC pauses (count, total, longest) per phase. */
  loopA: Record<string, LoopStats>;
  /** Instance A's bot turns hop by hop, per phase with turns (bench/live-hops.ts). */
  hopsA: Record<string, Hops>;
  /** What the live load's CPU explains of the closed-loop drop, by process. */
  drop: ReturnType<typeof attributeDrop>;
  /** Bot turns offered at a fixed rate below capacity, before, during (with the live traffic) and after. */
  openLoop: {
    before: OpenLoop;
    /** Every conversation held, no live traffic. */
    held: OpenLoop;
    during: OpenLoop;
    after: OpenLoop;
    live: Delivery;
    /**
     * After the live load: the same open loop while synthetic CPU stands in for it (the control for `during`):
     * on instance A's event loop what A spent on the live load alone, in two processes what the others spent
     * (burntOutside: what those two did burn).
     */
    synthetic: OpenLoop & { onAMsPerSec: number; outsideMsPerSec: number; burntOutsideMsPerSec: number };
  };
};
