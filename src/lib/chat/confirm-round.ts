import "server-only";
import type { ConfirmCard } from "@/shared/chat-events";
import type { DbHandle } from "../db";
import { audit } from "../db/queries/audit";
import {
  closeOpenCalls,
  insertPendingCall,
  liveStateOf,
  type PendingCall,
} from "../db/queries/pending-calls";
import { confirmCard } from "../tools/confirm";
import type { Lang } from "../tools/contract";
import { type EnabledPack, parseToolArgs, type ToolRunRecord } from "../tools/runtime";
import type { Emit } from "./events";
import type { ModelMessage, ToolCall } from "./model-types";

// When the model calls a pack with `confirm`, nothing runs: the call is validated, stored with the card the
// visitor sees, the card goes out as a `confirm` event and the turn ends there. What happens next is the
// visitor's tap (decide-turn.ts), or their next message, which declines it (closeCallsForTurn). A channel
// without buttons of its own (an adapter whose limits.choices is below 2) passes no `propose`: the model is
// told the action is not available there, as MiniBot's approve() denies on a client without buttons.

/** How long a card waits for the visitor's tap. */
export const CONFIRM_TTL_MS = 10 * 60_000;

/** Stores a validated call and gives its card, or says why no card can be shown now. */
export type ProposeCall = (
  call: ToolCall,
  entry: EnabledPack,
  args: Record<string, unknown>,
) => Promise<ConfirmCard | { refused: string }>;

/** What the model is told, as the tool's result, at each step. Every one starts with "confirmation". */
export const TOLD = {
  noButtons:
    "This action needs the visitor's explicit confirmation with a button, and this chat has no buttons, so nothing was sent. Tell the visitor it cannot be done here and offer another way.",
  person:
    "A person from the business is looking after this conversation now, so this action is not available and nothing was sent.",
  oneAtATime:
    "Another action is already waiting for the visitor's confirmation; nothing was sent for this one. Ask again after they decide.",
  awaiting: "The visitor is shown these values with Confirm and Cancel buttons. Nothing has been sent yet.",
  declined: "Declined by the visitor: nothing was sent.",
  declinedByMessage:
    "Declined by the visitor (they wrote a new message instead of confirming): nothing was sent.",
  expired: "Expired: the visitor did not confirm within 10 minutes, so nothing was sent.",
} as const;

export const told = (why: keyof typeof TOLD) =>
  JSON.stringify({ confirmation: why === "declinedByMessage" ? "declined" : why, message: TOLD[why] });

/** A trace record the platform writes for a confirming call (no run of the pack happened). */
export function platformRecord(
  call: { id: string; packId: string; args: unknown },
  label: string,
  result: string,
  outcome: ToolRunRecord["outcome"] = "ok",
): ToolRunRecord {
  return {
    callId: call.id,
    packId: call.packId,
    label,
    args: call.args,
    result,
    resultChars: result.length,
    durationMs: 0,
    outcome,
  };
}

/** The widget's proposer: refuses while a person has the conversation; stores the call otherwise. */
export function proposeIn(
  db: DbHandle,
  t: { tenantId: string; conversationId: string; visitorMessageId: string | null; lang?: Lang },
): ProposeCall {
  return async (call, entry, args) => {
    const now = new Date();
    return db.forTenant(t.tenantId, async (tx) => {
      if ((await liveStateOf(tx, t.conversationId)) !== "bot") return { refused: told("person") };
      const card = confirmCard(entry, args, t.lang);
      const row = await insertPendingCall(tx, {
        tenantId: t.tenantId,
        conversationId: t.conversationId,
        visitorMessageId: t.visitorMessageId,
        packId: entry.pack.id,
        callId: call.id,
        args,
        card,
        createdAt: now,
        expiresAt: new Date(now.getTime() + CONFIRM_TTL_MS),
      });
      await audit(tx, {
        tenantId: t.tenantId,
        actor: null,
        action: "action.proposed",
        target: row.id,
        details: { pack: entry.pack.id, conversationId: t.conversationId, title: card.title },
      });
      return cardOf(row);
    });
  };
}

export function cardOf(row: Pick<PendingCall, "id" | "card" | "expiresAt">): ConfirmCard {
  return { callId: row.id, ...row.card, expiresAt: row.expiresAt.toISOString() };
}

/**
 * One call of a pack with `confirm`, inside the loop's round: a card when it can be shown (and no other card
 * was in this round), else a result telling the model why nothing happened.
 */
export async function proposeCall(
  propose: ProposeCall | undefined,
  call: ToolCall,
  entry: EnabledPack,
  label: string,
  round: { carded: boolean },
  emit: Emit,
): Promise<ToolRunRecord> {
  const parsed = parseToolArgs(entry, call.arguments);
  const base = { id: call.id, packId: entry.pack.id };
  if (!parsed.ok) {
    return platformRecord(
      { ...base, args: parsed.args },
      label,
      JSON.stringify(parsed.error),
      "invalid_args",
    );
  }
  const said = (why: keyof typeof TOLD) => platformRecord({ ...base, args: parsed.args }, label, told(why));
  if (!propose) return said("noButtons");
  if (round.carded) return said("oneAtATime");
  round.carded = true;
  const card = await propose(call, entry, parsed.args);
  if ("refused" in card) {
    round.carded = false;
    return platformRecord({ ...base, args: parsed.args }, label, card.refused);
  }
  emit({ type: "confirm", data: card });
  return said("awaiting");
}

/** The tool call and its result as the model must see them, for a decision it learns in a later round. */
export function decisionMessages(row: Pick<PendingCall, "callId" | "packId" | "args">, result: string) {
  return [
    {
      role: "assistant",
      content: null,
      tool_calls: [
        {
          id: row.callId,
          type: "function" as const,
          function: { name: row.packId, arguments: JSON.stringify(row.args) },
        },
      ],
    },
    { role: "tool", tool_call_id: row.callId, content: result },
  ] as ModelMessage[];
}

/**
 * A new visitor message declines every card still waiting in the conversation (or finds it expired): the
 * model is told so before it reads the new message, and the trace and the audit log keep it.
 */
export async function closeCallsForTurn(
  db: DbHandle,
  tenantId: string,
  conversationId: string,
  label: (packId: string) => string,
): Promise<{ messages: ModelMessage[]; runs: ToolRunRecord[] }> {
  const now = new Date();
  const closed = await db.forTenant(tenantId, async (tx) => {
    const rows = await closeOpenCalls(tx, conversationId, now);
    for (const r of rows) {
      await audit(tx, {
        tenantId,
        actor: null,
        action: r.status === "expired" ? "action.expired" : "action.declined",
        target: r.id,
        details: { pack: r.packId, conversationId, title: r.card.title, by: "visitor", how: "new message" },
      });
    }
    return rows;
  });
  const messages: ModelMessage[] = [];
  const runs: ToolRunRecord[] = [];
  for (const r of closed) {
    const result = told(r.status === "expired" ? "expired" : "declinedByMessage");
    messages.push(...decisionMessages(r, result));
    runs.push(platformRecord({ id: r.callId, packId: r.packId, args: r.args }, label(r.packId), result));
  }
  return { messages, runs };
}
