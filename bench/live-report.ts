// The live bench's rows in the terminal summary (bench/report.ts).
import type { CpuShare } from "./lib/cpu-share";
import { fmt } from "./lib/table";
import type { LiveResult } from "./live";
import type { OpenLoop } from "./live-client";

const cpu = (c: CpuShare) =>
  `A ${fmt(c.instanceA, "")}, B ${fmt(c.instanceB, "")}, postgres ${fmt(c.postgres, "")}, ` +
  `bench client ${fmt(c.benchClient, "")}, world ${fmt(c.world, "")}, other ${fmt(c.other, "")}, ` +
  `idle ${fmt(c.idle, " ms/s")}`;

const open = (o: OpenLoop) =>
  `${fmt(o.servedPerSec, "/s")} p50 ${fmt(o.latencyMs.p50, "")} p99 ${fmt(o.latencyMs.p99, " ms")}` +
  (o.failed ? ` (${o.failed} failed)` : "");

export function liveRows(live: LiveResult): string[][] {
  const p99 = (d: typeof live.oneInstance) =>
    `visitor→agent ${fmt(d.visitorToAgent.p99, " ms")}, agent→visitor ${fmt(d.agentToVisitor.p99, " ms")}`;
  const once = (d: typeof live.oneInstance) =>
    `${d.sent} sent, ${d.lost} lost${d.refused ? ` (${d.refused} appends refused)` : ""}, ${d.duplicates} twice, ` +
    `${d.outOfOrder} out of order`;
  const d = live.drop;
  return [
    ["live.oneInstance p99", p99(live.oneInstance), `target 250 ms; ${once(live.oneInstance)}`],
    ["live.twoInstances p99", p99(live.twoInstances), `target 500 ms; ${once(live.twoInstances)}`],
    [
      "live.kbPerConversation",
      fmt(live.kbPerConversation, " KB"),
      `heap after GC; ${live.conversations} held, ${live.consoles} consoles; RSS ${fmt(live.rssIdleMb, " MB")} → ` +
        `${fmt(live.rssHeldMb, " MB")} (${fmt(live.rssKbPerConversation, " KB")} each)`,
    ],
    [
      "live.chatTurnsRatio",
      fmt(live.chatTurnsPerSec.ratio, "", 2),
      `closed loop, saturated: bot turns/s ${fmt(live.chatTurnsPerSec.during)} during vs ` +
        `${fmt(live.chatTurnsPerSec.before)} before, ${fmt(live.chatTurnsPerSec.after)} after; ` +
        `delivery p99 then ${p99(live.underBotLoad)}`,
    ],
    [
      "live.heldRatio",
      fmt(live.chatTurnsPerSec.heldRatio, "", 2),
      `closed loop with ${live.conversations} conversations held, no traffic: ` +
        `${fmt(live.chatTurnsPerSec.held)} turns/s; open loop ${open(live.openLoop.held)}`,
    ],
    ["live.cpuShare before", "ms/s", cpu(live.cpuShare.before!)],
    ["live.cpuShare during", "ms/s", cpu(live.cpuShare.during!)],
    ["live.cpuShare liveAlone", "ms/s", cpu(live.cpuShare.liveAlone!)],
    [
      "live.drop",
      `${fmt(d.turnsLost, "")} lost`,
      `the live load alone takes ${fmt(d.liveCpuMsPerSec.total, " ms/s")} of CPU ` +
        `(platform ${fmt(d.share.platform * 100, "%")}, bench client ${fmt(d.share.benchClient * 100, "%")}); ` +
        `at ${fmt(d.cpuMsPerBotTurn.total, " ms", 2)} per bot turn that is ${fmt(d.turnsDisplaced, "")} turns/s`,
    ],
    [
      "live.openLoop",
      `${live.openLoop.before.offeredPerSec}/s offered`,
      `before ${open(live.openLoop.before)}; during ${open(live.openLoop.during)}; ` +
        `after ${open(live.openLoop.after)}`,
    ],
    [
      "live.synthetic",
      fmt(live.chatTurnsPerSec.syntheticRatio, "", 2),
      `control, the live load's CPU burnt instead (${fmt(live.openLoop.synthetic.onAMsPerSec, " ms/s")} on A, ` +
        `${fmt(live.openLoop.synthetic.outsideMsPerSec, " ms/s")} outside): closed loop ` +
        `${fmt(live.chatTurnsPerSec.synthetic)} turns/s; open loop ${open(live.openLoop.synthetic)}`,
    ],
    ...(["openBefore", "openHeld", "openDuring", "openAfter", "openSynthetic"] as const).flatMap((phase) => {
      const h = live.hopsA[phase];
      if (!h) return [];
      const s = h.slowest;
      return [
        [
          `live.hops ${phase}`,
          `p99 ${fmt(h.total.p99, " ms")}`,
          `first byte p99 ${fmt(h.firstByte.p99, " ms")}; slowest ${s.n}, mean ms: pool ${fmt(s.pool, "")}, ` +
            `db ${fmt(s.db, "")}, model ${fmt(s.model, "")}, fetch ${fmt(s.fetch, "")}, body ${fmt(s.body, "")}, ` +
            `other ${fmt(s.other, "")} of ${fmt(s.total, "")}`,
        ],
      ];
    }),
    [
      "live.cpuMsPerLiveMessage",
      fmt(live.cpuMsPerLiveMessage, " ms", 2),
      `instance CPU per message (append, both deliveries), beside ${fmt(live.cpuMsPerSecondHeld, " ms")}/s for ` +
        `holding the streams idle; a bot turn: ` +
        `${fmt(live.cpuMsPerBotTurn.before, " ms", 2)} before, ${fmt(live.cpuMsPerBotTurn.after, " ms", 2)} after`,
    ],
    [
      "live.queriesPerLiveMessage",
      fmt(live.queriesPerLiveMessage, "", 2),
      `statements instance A sent per message (the append's transaction, the streams' reads), beside ` +
        `${fmt(live.queriesPerSecondHeld, "/s")} for the held streams idle; a bot turn: ${fmt(live.queriesPerBotTurn, "", 2)}`,
    ],
    [
      "live.transportOnly",
      fmt(live.transportOnly.cpuMsPerMessage, " ms", 2),
      `appends on B, streams on A: A's CPU per message (wake-up, read, SSE writes) and ` +
        `${fmt(live.transportOnly.queriesPerMessage, "", 2)} statements; B's per append ` +
        `${fmt(live.transportOnly.appendCpuMsPerMessage, " ms", 2)}; ${once(live.transportOnly.delivery)}`,
    ],
  ];
}
