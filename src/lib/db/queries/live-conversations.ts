import "server-only";
import { and, asc, eq, inArray, isNotNull, sql } from "drizzle-orm";
import type { LiveAgent, LiveState } from "@/shared/live-events";
import type { TenantTx } from "../client";
import { conversations, messages, userAvatars, users, type VerifiedVisitor } from "../schema";

// A conversation's live state (drizzle/0028): the row the takeover's use cases lock and change, the agents'
// messages, the names the visitor sees. Tenant path only, under row-level security.

export type LiveRow = {
  id: string;
  visitorId: string;
  locale: string;
  liveState: LiveState;
  liveVersion: number;
  liveAgentId: string | null;
  liveRequestedAt: Date | null;
  liveFirstResponseAt: Date | null;
  /** Who the business's site vouched for; null for an anonymous visitor. */
  verifiedVisitor: VerifiedVisitor | null;
};

const liveColumns = {
  id: conversations.id,
  visitorId: conversations.visitorId,
  locale: conversations.locale,
  liveState: conversations.liveState,
  liveVersion: conversations.liveVersion,
  liveAgentId: conversations.liveAgentId,
  liveRequestedAt: conversations.liveRequestedAt,
  liveFirstResponseAt: conversations.liveFirstResponseAt,
  verifiedVisitor: conversations.verifiedVisitor,
};

/**
 * The conversation's live columns, locked for the rest of the transaction: the same row lock the turn's
 * finishing statement takes, so a state change and a bot answer never interleave.
 */
export async function lockLiveConversation(tx: TenantTx, id: string): Promise<LiveRow | null> {
  const [row] = await tx
    .select(liveColumns)
    .from(conversations)
    .where(eq(conversations.id, id))
    .for("update");
  return row ?? null;
}

/** A conversation the visitor opened by asking for a person before writing anything; returns its id. */
export async function insertLiveConversation(
  tx: TenantTx,
  input: { tenantId: string; visitorId: string; origin: string; pageUrl: string; locale: string },
): Promise<string> {
  const [row] = await tx.insert(conversations).values(input).returning({ id: conversations.id });
  return (row as { id: string }).id;
}

/** A state change: bumps the version, so a turn that opened before it stores no answer. */
export async function setLiveState(
  tx: TenantTx,
  id: string,
  change: {
    state: LiveState;
    agentId: string | null;
    requestedAt?: Date | null;
    endedAt?: Date | null;
    /** A new request starts the first-response clock again (null). */
    firstResponseAt?: null;
    /** The round-robin's choice (transition.ts); every other change is a person's, and clears it. */
    auto?: boolean;
  },
): Promise<void> {
  await tx
    .update(conversations)
    .set({
      liveState: change.state,
      liveAgentId: change.agentId,
      liveAutoAssigned: change.auto ?? false,
      liveVersion: sql`${conversations.liveVersion} + 1`,
      lastActivityAt: sql`now()`,
      ...(change.requestedAt !== undefined ? { liveRequestedAt: change.requestedAt } : {}),
      ...(change.endedAt !== undefined ? { liveEndedAt: change.endedAt } : {}),
      ...(change.firstResponseAt !== undefined ? { liveFirstResponseAt: change.firstResponseAt } : {}),
    })
    .where(eq(conversations.id, id));
}

/** Stores a person's message in the conversation; the first one sets the first response time. */
export async function insertAgentMessage(
  tx: TenantTx,
  input: { tenantId: string; conversationId: string; agentId: string; content: string },
): Promise<string> {
  const [row] = await tx
    .insert(messages)
    .values({
      tenantId: input.tenantId,
      conversationId: input.conversationId,
      role: "agent",
      agentId: input.agentId,
      content: input.content,
    })
    .returning({ id: messages.id });
  await tx
    .update(conversations)
    .set({
      lastActivityAt: sql`now()`,
      liveFirstResponseAt: sql`coalesce(${conversations.liveFirstResponseAt}, now())`,
    })
    .where(eq(conversations.id, input.conversationId));
  return (row as { id: string }).id;
}

/**
 * The people who wrote in a conversation, by user id: their name and their photo's version (what the visitor
 * sees beside them). A photo shows only while they are a member (the photos' row-level policy).
 */
export async function agentNamesOf(
  tx: TenantTx,
  conversationId: string,
): Promise<Map<string, { name: string; avatar?: string }>> {
  const rows = await tx
    .selectDistinct({ id: users.id, name: users.name, email: users.email, avatar: userAvatars.version })
    .from(messages)
    .innerJoin(users, eq(users.id, messages.agentId))
    .leftJoin(userAvatars, eq(userAvatars.userId, users.id))
    .where(and(eq(messages.conversationId, conversationId), isNotNull(messages.agentId)));
  return new Map(
    rows.map((r) => [r.id, { name: displayName(r), ...(r.avatar ? { avatar: r.avatar } : {}) }]),
  );
}

/** A person's name as a visitor sees it: their name, else the part of their address before the @. */
export function displayName(u: { name: string; email: string }): string {
  return u.name.trim() || (u.email.split("@")[0] ?? "");
}

/** One member as a live event names them: id, the name a visitor sees and their photo's version, if any. */
export async function findAgent(tx: TenantTx, userId: string): Promise<LiveAgent | null> {
  const [row] = await tx
    .select({ id: users.id, name: users.name, email: users.email, avatar: userAvatars.version })
    .from(users)
    .leftJoin(userAvatars, eq(userAvatars.userId, users.id))
    .where(eq(users.id, userId));
  return row ? { id: row.id, name: displayName(row), ...(row.avatar ? { avatar: row.avatar } : {}) } : null;
}

export type QueueRow = LiveRow & {
  question: string | null;
  agentName: string | null;
  /** The version of that person's photo, when they have one (drizzle/0032). */
  agentAvatar: string | null;
  /** Where the visitor writes from: the widget, WhatsApp or Telegram. */
  channel: "web" | "whatsapp" | "telegram";
};

/**
 * The conversations waiting for or talking with a person, oldest request first (the live queue), each with
 * the visitor's latest words and who has it.
 */
export async function listLiveQueue(tx: TenantTx, tenantId: string): Promise<QueueRow[]> {
  const rows = await tx
    .select({
      ...liveColumns,
      channel: conversations.channel,
      question: sql<string | null>`(select m.content from ${messages} m
        where m.conversation_id = ${conversations.id} and m.role = 'user'
        order by m.created_at desc, m.id desc limit 1)`,
      agentName: users.name,
      agentEmail: users.email,
      agentAvatar: userAvatars.version,
    })
    .from(conversations)
    .leftJoin(users, eq(users.id, conversations.liveAgentId))
    .leftJoin(userAvatars, eq(userAvatars.userId, conversations.liveAgentId))
    .where(and(eq(conversations.tenantId, tenantId), inArray(conversations.liveState, ["waiting", "person"])))
    .orderBy(asc(conversations.liveRequestedAt), asc(conversations.id));
  return rows.map(({ agentEmail, agentName, ...r }) => ({
    ...r,
    agentName: agentEmail === null ? null : displayName({ name: agentName ?? "", email: agentEmail }),
  }));
}

export type NoteRow = { seq: number; text: string; author: string; at: Date };

/** A conversation's internal notes, oldest first: they live in the live log only (kind 'note'). */
export async function listNotes(tx: TenantTx, conversationId: string): Promise<NoteRow[]> {
  const rows = await tx.execute(
    sql`select seq, data->>'text' as text, data->'author'->>'name' as author, created_at from live_events
      where tenant_id = michi_current_tenant() and conversation_id = ${conversationId}::uuid and kind = 'note'
      order by seq`,
  );
  return (
    rows as unknown as { rows: { seq: string; text: string; author: string; created_at: string }[] }
  ).rows.map((r) => ({ seq: Number(r.seq), text: r.text, author: r.author, at: new Date(r.created_at) }));
}
