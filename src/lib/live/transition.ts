import "server-only";
import type { LiveAgent, LiveState } from "@/shared/live-events";
import type { TenantTx } from "../db/client";
import type { RecordAudit } from "../db/queries/audit";
import { setLiveState } from "../db/queries/live-conversations";
import { appendLiveEvent } from "../db/queries/live-events";
import { markAssigned, onlineAgents, readLiveSettings } from "../db/queries/live-presence";
import {
  anyoneInLine,
  lockAssignments,
  lockOldestInLine,
  markAssignedUnlessBusy,
} from "../db/queries/live-queue";
import { AppError } from "../errors";
import { PRESENCE_TTL_MS, pickAgent } from "./availability";
import { wakeLive } from "./bus";

// Where a live conversation may go, in one place. Every change of a conversation's live state goes through
// moveConversation: it refuses a move the table lacks for the state the row is in, bumps the live version
// (so a bot answer still streaming is not kept, see michi_finish_turn), audits, appends the live event and
// returns the conversations to wake once the caller's transaction commits. The use cases (takeover.ts,
// reply.ts, request.ts) decide only who may; the round-robin below decides only whom.
// The SQL functions of the turn read the same split (michi_open_turn: a person's side; michi_finish_turn:
// the bot's), and tests/unit/live-transition.test.ts holds them and this table equal.

/** States in which the bot answers the visitor. */
export const BOT_STATES = ["bot", "closed"] as const satisfies readonly LiveState[];
/** States in which a person has the conversation or is asked for: the model is not called. */
export const PERSON_STATES = ["waiting", "person"] as const satisfies readonly LiveState[];

export function isPersonState(state: LiveState): state is (typeof PERSON_STATES)[number] {
  return (PERSON_STATES as readonly LiveState[]).includes(state);
}

type MoveSpec = { from: readonly LiveState[]; to: LiveState; audit: string; refusal: string };

/** The allowed moves: from which states, to which, under which audit action. */
export const LIVE_MOVES = {
  /** A visitor asks for a person: in line, unassigned. */
  request: {
    from: BOT_STATES,
    to: "waiting",
    audit: "live.requested",
    refusal: "A person is already asked for.",
  },
  /** A waiting visitor is given to someone (a teammate's choice or the round-robin's). */
  assign: {
    from: ["waiting"],
    to: "waiting",
    audit: "live.assigned",
    refusal: "Only a conversation waiting for a person or with a person can be assigned.",
  },
  /** A person takes the conversation, from the bot, the line or (an owner) a teammate. */
  claim: { from: [...BOT_STATES, ...PERSON_STATES], to: "person", audit: "live.claimed", refusal: "" },
  /** A person's conversation goes to a teammate. */
  transfer: {
    from: ["person"],
    to: "person",
    audit: "live.transferred",
    refusal: "Only a conversation with a person can be transferred.",
  },
  handBack: {
    from: PERSON_STATES,
    to: "bot",
    audit: "live.handed_back",
    refusal: "No person has this conversation.",
  },
  close: {
    from: PERSON_STATES,
    to: "closed",
    audit: "live.closed",
    refusal: "No person has this conversation.",
  },
} as const satisfies Record<string, MoveSpec>;

export type LiveMove = keyof typeof LIVE_MOVES;

/** Refuses a move the table lacks for `state` (a use case may ask before its own checks). */
export function assertMove(state: LiveState, move: LiveMove): MoveSpec {
  const spec: MoveSpec = LIVE_MOVES[move];
  if (!spec.from.includes(state)) throw new AppError("conflict", spec.refusal);
  return spec;
}

/** The transaction a move runs in. */
export type Mover = { tx: TenantTx; tenantId: string; record: RecordAudit; now?: Date };

/** The row as locked by lockLiveConversation (the fields a move reads). */
export type MovingRow = {
  id: string;
  liveState: LiveState;
  liveAgentId: string | null;
  liveRequestedAt?: Date | null;
};

/**
 * Moves a locked conversation. `agent` is who will answer (assign, claim, transfer); `by` marks the
 * round-robin's choice. Returns the conversations to wake (wakeAssigned) after the commit: this one, and
 * those the line gave out when the move freed a slot or put a visitor in line.
 */
export async function moveConversation(
  m: Mover,
  c: MovingRow,
  move: LiveMove,
  opts: { agent?: LiveAgent; by?: "round-robin" } = {},
): Promise<string[]> {
  const spec = assertMove(c.liveState, move);
  const now = m.now ?? new Date();
  const agent = spec.to === "waiting" || spec.to === "person" ? (opts.agent ?? null) : null;
  // An agent id left on a conversation the bot has again means nothing: hand back and close clear it.
  const holder = isPersonState(c.liveState) ? c.liveAgentId : null;
  const auto = opts.by === "round-robin";
  await setLiveState(m.tx, c.id, {
    state: spec.to,
    agentId: agent?.id ?? null,
    auto,
    ...(move === "request" ? { requestedAt: now, endedAt: null, firstResponseAt: null } : {}),
    ...(move === "claim" ? { requestedAt: c.liveRequestedAt ?? now } : {}),
    ...(spec.to === "bot" || spec.to === "closed" ? { endedAt: now } : {}),
  });
  if (agent) await (auto ? markAssignedUnlessBusy : markAssigned)(m.tx, m.tenantId, agent.id);
  await m.record(spec.audit, { target: c.id, details: auditDetails(move, c, holder, agent, opts.by) });
  await appendLiveEvent(m.tx, { conversationId: c.id, ...liveEvent(move, spec.to, agent) });
  const freed = holder !== null && holder !== agent?.id;
  const serve = !auto && (freed || move === "request");
  return [c.id, ...(serve ? await assignWaiting(m.tx, m.tenantId, m.record, now) : [])];
}

function auditDetails(
  move: LiveMove,
  c: MovingRow,
  holder: string | null,
  agent: LiveAgent | null,
  by: "round-robin" | undefined,
): Record<string, unknown> {
  switch (move) {
    case "request":
      return { by: "visitor" };
    case "claim":
      return { from: c.liveState, ...(holder && holder !== agent?.id ? { takenFrom: holder } : {}) };
    case "assign":
    case "transfer":
      return { to: agent?.id, from: c.liveAgentId, ...(by ? { by } : {}) };
    default:
      return { from: c.liveState };
  }
}

function liveEvent(move: LiveMove, to: LiveState, agent: LiveAgent | null) {
  if (move === "assign" && agent) return { kind: "assigned", data: { agent } } as const;
  if (to === "person" && agent) return { kind: "state", data: { state: "person", agent } } as const;
  if (to === "bot") return { kind: "state", data: { state: to, reason: "handed_back" } } as const;
  if (to === "closed") return { kind: "state", data: { state: to, reason: "closed" } } as const;
  return { kind: "state", data: { state: to } } as const;
}

// Visitors who asked for a person while every agent was at their limit wait unassigned, in line; so does one
// the round-robin gave to an agent who has left since (console closed, away), though a teammate a person chose
// keeps theirs. Round-robin at the moment of asking alone would leave them there for ever, so every change
// that can make room (a visitor asking, a hand back, a close, a transfer or a takeover, an agent online or
// back from away, a higher limit) calls assignWaiting inside its own transaction: the oldest in line go, one
// by one, to the online agent next in the round-robin with room, each audited and in the live log. The
// tenant's live-log lock makes it one decision at a time, so two events at once never count the same free
// slot twice; while holding it nothing here waits for a row (skip locked), since others wait for it while
// holding rows.

/**
 * Gives the oldest conversations in line to online agents with room. Returns the ids assigned, to
 * be woken (wakeAssigned) once the caller's transaction has committed.
 */
export async function assignWaiting(
  tx: TenantTx,
  tenantId: string,
  record: RecordAudit,
  now: Date = new Date(),
): Promise<string[]> {
  // Most calls (every heartbeat of every console) find nobody waiting; they should not queue on the lock.
  // Whoever makes a visitor wait unassigned calls this too, under the lock, so the look cannot miss one.
  const since = new Date(now.getTime() - PRESENCE_TTL_MS);
  if (!(await anyoneInLine(tx, tenantId, since))) return [];
  await lockAssignments(tx, tenantId);
  const settings = await readLiveSettings(tx, tenantId);
  const agents = await onlineAgents(tx, tenantId, since);
  const room = agents.reduce((n, a) => n + Math.max(0, settings.maxPerAgent - a.load), 0);
  if (room === 0) return [];
  const waiting = await lockOldestInLine(tx, tenantId, room, since);
  const assigned: string[] = [];
  for (const { id, from } of waiting) {
    const agent = pickAgent(agents, settings.maxPerAgent);
    if (!agent) break;
    const row = { id, liveState: "waiting", liveAgentId: from } as const;
    await moveConversation({ tx, tenantId, record, now }, row, "assign", {
      agent: { id: agent.id, name: agent.name },
      by: "round-robin",
    });
    // As in the table: to the back of the line, one more conversation held.
    agent.load += 1;
    agent.lastAssignedAt = new Date(
      Math.max(now.getTime(), ...agents.map((a) => a.lastAssignedAt?.getTime() ?? 0)) + 1,
    );
    assigned.push(id);
  }
  return assigned;
}

/** After the commit: the console and the visitors' streams of the conversations just moved read again. */
export function wakeAssigned(tenantId: string, conversationIds: readonly string[]): void {
  for (const id of new Set(conversationIds)) wakeLive(tenantId, id);
}
