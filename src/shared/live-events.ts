// The live takeover's events as they travel (issue #28). Every event is first a row of the append-only
// `live_events` log (drizzle/0027); its `seq` is the Server-Sent Event id, so a stream resumed with
// Last-Event-ID delivers what it missed, in order, once. The server writes exactly these shapes
// (src/lib/db/queries/live-events.ts, src/lib/live/) and the panel and the console read exactly these.

export type LiveState = "bot" | "waiting" | "person" | "closed";

/**
 * A person of the business as the log stores them and the console reads them: `avatar` is their profile
 * photo's version when they have one (drizzle/0032).
 */
export type LiveAgent = { id: string; name: string; avatar?: string };

/**
 * The same person as a visitor's stream and history carry them: never their user id or e-mail. `avatarUrl`
 * is an opaque address under the widget's key, fetched with the visitor's token (src/widget/server/avatar.ts).
 */
export type VisitorAgent = { name: string; avatarUrl?: string };

/** The kinds and their data, one entry per kind; `A` is how a person is named (the console's or a visitor's). */
export type LiveEventData<A = LiveAgent> = {
  visitor_message: { messageId: string; text: string };
  agent_message: { messageId: string; text: string; agent: A };
  bot_message: { messageId: string; text: string };
  state: { state: LiveState; agent?: A; reason?: string };
  /** Agents only: a visitor's stream never carries one. */
  note: { text: string; author: A };
  /** Who will answer a waiting visitor (round-robin or a teammate's choice); the visitor sees the name. */
  assigned: { agent: A };
};

export type LiveKind = keyof LiveEventData;

/** One stored event as a stream delivers it: `seq` is also the SSE `id:`, `kind` the SSE `event:`. */
export type LiveEvent<A = LiveAgent> = {
  [K in LiveKind]: { seq: number; conversationId: string; kind: K; data: LiveEventData<A>[K]; at: string };
}[LiveKind];

/** What a visitor's stream delivers. */
export type VisitorLiveEvent = LiveEvent<VisitorAgent>;

/** The kinds a visitor may receive; everything else stays on the business's side. */
export const VISITOR_LIVE_KINDS = [
  "visitor_message",
  "agent_message",
  "bot_message",
  "state",
  "assigned",
] as const satisfies readonly LiveKind[];

export const LIVE_KINDS = [...VISITOR_LIVE_KINDS, "note"] as const satisfies readonly LiveKind[];

/** Parses a Last-Event-ID (header or query parameter): a non-negative integer, else 0 (from the start). */
export function parseLastEventId(value: string | null | undefined): number {
  if (!value || !/^\d{1,15}$/.test(value.trim())) return 0;
  return Number(value.trim());
}
