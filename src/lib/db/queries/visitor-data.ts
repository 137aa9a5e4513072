import "server-only";
import { and, eq, getTableName, inArray, type SQL, sql } from "drizzle-orm";
import type { AnyPgColumn, PgTable } from "drizzle-orm/pg-core";
import { rowsOf, type TenantTx } from "../client";
import {
  channelContacts,
  channelInbound,
  channelOutbound,
  conversations,
  type ErasedVisitor,
  leads,
  liveEvents,
  messageFeedback,
  messages,
  pendingToolCalls,
  tenants,
  toolRuns,
  unansweredHandled,
  webhookDeliveries,
} from "../schema";
import type { VisitorKeys } from "./visitor-find";

// Every table that holds something about one visitor, how its rows are found from the visitor's keys, and the
// order they are erased in (children before parents, so each count is exact and nothing waits on a cascade).
// tests/integration/privacy-visitor-data.test.ts walks the migrated schema and fails on a table that references a
// conversation, a message or a visitor and is missing here: a new table must say how it is exported and erased.

type Scoped = PgTable & { tenantId: AnyPgColumn };

export type VisitorPart = {
  table: Scoped;
  where: (k: VisitorKeys) => SQL;
  /** Columns left out of the export: derived (a search folding of the content), never the visitor's own. */
  omit?: readonly string[];
};

const none = sql`false`;
const any = (col: AnyPgColumn, ids: readonly string[]) => (ids.length ? inArray(col, [...ids]) : none);
const ofConversations = (col: AnyPgColumn) => (k: VisitorKeys) => any(col, k.conversationIds);

/** A webhook delivery kept in the log carries a copy of a lead or a conversation id in its payload. */
function inPayload(k: VisitorKeys): SQL {
  const ids = [...k.conversationIds, ...k.leadIds];
  if (ids.length === 0) return none;
  // Ids are uuids, unique across the platform: a payload that names one is about this visitor.
  return sql`(${sql.join(
    ids.map((id) => sql`${webhookDeliveries.payload}::text like ${`%${id}%`}`),
    sql` or `,
  )})`;
}

const messagesOfVisitor = (k: VisitorKeys) =>
  k.conversationIds.length
    ? inArray(
        unansweredHandled.messageId,
        sql`(select ${messages.id} from ${messages} where ${any(messages.conversationId, k.conversationIds)})`,
      )
    : none;

/** Erase order: what points at a row goes before it. */
export const VISITOR_PARTS: readonly VisitorPart[] = [
  { table: unansweredHandled, where: messagesOfVisitor },
  { table: messageFeedback, where: ofConversations(messageFeedback.conversationId) },
  { table: toolRuns, where: ofConversations(toolRuns.conversationId) },
  { table: pendingToolCalls, where: ofConversations(pendingToolCalls.conversationId) },
  { table: liveEvents, where: ofConversations(liveEvents.conversationId) },
  { table: channelOutbound, where: ofConversations(channelOutbound.conversationId) },
  { table: channelContacts, where: ofConversations(channelContacts.conversationId) },
  { table: channelInbound, where: (k) => any(channelInbound.contact, k.visitorIds) },
  { table: webhookDeliveries, where: inPayload },
  { table: leads, where: (k) => any(leads.id, k.leadIds) },
  { table: messages, where: ofConversations(messages.conversationId), omit: ["content_search"] },
  { table: conversations, where: (k) => any(conversations.id, k.conversationIds) },
];

export const partName = (p: VisitorPart) => getTableName(p.table);

const cond = (p: VisitorPart, tenantId: string, k: VisitorKeys) =>
  and(eq(p.table.tenantId, tenantId), p.where(k));

export type VisitorRows = Record<string, Record<string, unknown>[]>;

/**
 * Every row of every part, by table name, with the database's own column names (so an export reads the same
 * as the schema docs). A few queries in all, one per table, whatever the number of messages.
 */
export async function readVisitorRows(tx: TenantTx, tenantId: string, k: VisitorKeys): Promise<VisitorRows> {
  const out: VisitorRows = {};
  for (const p of VISITOR_PARTS) {
    const name = partName(p);
    const rows = await rowsOf<Record<string, unknown>>(
      tx,
      sql`select * from ${p.table} where ${cond(p, tenantId, k)} order by 1`,
    );
    out[name] = rows.map((r) => {
      const copy = { ...r };
      for (const c of p.omit ?? []) delete copy[c];
      return copy;
    });
  }
  return out;
}

/** How many rows each part holds, without reading them. */
export async function countVisitorRows(
  tx: TenantTx,
  tenantId: string,
  k: VisitorKeys,
): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const p of VISITOR_PARTS) {
    const [row] = await tx
      .select({ n: sql<number>`count(*)::int` })
      .from(p.table)
      .where(cond(p, tenantId, k));
    out[partName(p)] = Number(row?.n ?? 0);
  }
  return out;
}

/** Deletes every part's rows in order, in the caller's transaction; how many went from each table. */
export async function deleteVisitorRows(
  tx: TenantTx,
  tenantId: string,
  k: VisitorKeys,
): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const p of VISITOR_PARTS) {
    const gone = await tx
      .delete(p.table)
      .where(cond(p, tenantId, k))
      .returning({ one: sql<number>`1` });
    out[partName(p)] = gone.length;
  }
  return out;
}

/** The tenant's erased visitor hashes, locked for the erasure that adds to them. */
export async function erasedVisitorsForUpdate(tx: TenantTx, tenantId: string): Promise<ErasedVisitor[]> {
  const [row] = await tx
    .select({ list: tenants.erasedVisitors })
    .from(tenants)
    .where(eq(tenants.id, tenantId))
    .for("update");
  return row?.list ?? [];
}

export async function saveErasedVisitors(
  tx: TenantTx,
  tenantId: string,
  list: ErasedVisitor[],
): Promise<void> {
  await tx
    .update(tenants)
    .set({ erasedVisitors: list, updatedAt: new Date() })
    .where(eq(tenants.id, tenantId));
}

/** The e-mail addresses and phone numbers the visitor's contact requests gave, for what lies outside the tenant. */
export async function leadContacts(tx: TenantTx, tenantId: string, k: VisitorKeys): Promise<string[]> {
  if (k.leadIds.length === 0) return [];
  const rows = await tx
    .select({ email: leads.email, phone: leads.phone })
    .from(leads)
    .where(and(eq(leads.tenantId, tenantId), inArray(leads.id, k.leadIds)));
  return [...new Set(rows.flatMap((r) => [r.email, r.phone]).filter(Boolean))];
}
