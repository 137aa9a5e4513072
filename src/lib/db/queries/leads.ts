import "server-only";
import { and, desc, eq, inArray, type SQL, sql } from "drizzle-orm";
import { isUuid } from "@/shared/parse";
import type { TenantTx } from "../client";
import {
  type LeadKind,
  type LeadMailStatus,
  type LeadSource,
  type LeadStatus,
  leads,
  type MessageRole,
  messages,
} from "../schema";

// The Inbox's rows: visitors' contact requests and hand-offs the assistant offered. Tenant path only; every
// statement also names the tenant so it walks leads_tenant_created_idx.

export type LeadRow = typeof leads.$inferSelect;

export type ContactDetails = {
  name: string;
  email: string;
  phone: string;
  message: string;
  consentText: string;
  locale: string;
};

/** Records that the assistant offered a hand-off in a turn (the panel shows the form); no details yet. */
export async function insertHandoff(
  tx: TenantTx,
  input: { tenantId: string; conversationId: string; messageId: string | null; locale: string },
): Promise<LeadRow> {
  const [row] = await tx
    .insert(leads)
    .values({ ...input, kind: "handoff", source: "assistant" })
    .returning();
  if (!row) throw new Error("lead insert returned nothing");
  return row;
}

/**
 * Stores the visitor's details: they complete the newest open hand-off of the conversation when there is one
 * (so the Inbox shows one item per request, not an offer and a lead), else they make a new lead.
 */
export async function saveLead(
  tx: TenantTx,
  input: ContactDetails & { tenantId: string; conversationId: string | null; source: LeadSource },
): Promise<LeadRow> {
  if (input.conversationId) {
    const [open] = await tx
      .select({ id: leads.id })
      .from(leads)
      .where(
        and(
          eq(leads.tenantId, input.tenantId),
          eq(leads.conversationId, input.conversationId),
          eq(leads.kind, "handoff"),
          eq(leads.status, "new"),
        ),
      )
      .orderBy(desc(leads.createdAt))
      .limit(1);
    if (open) {
      const [row] = await tx
        .update(leads)
        .set({ ...pickDetails(input), kind: "lead", createdAt: new Date(), updatedAt: new Date() })
        .where(eq(leads.id, open.id))
        .returning();
      if (row) return row;
    }
  }
  const [row] = await tx
    .insert(leads)
    .values({
      tenantId: input.tenantId,
      conversationId: input.conversationId,
      kind: "lead",
      source: input.source,
      ...pickDetails(input),
    })
    .returning();
  if (!row) throw new Error("lead insert returned nothing");
  return row;
}

function pickDetails(d: ContactDetails): ContactDetails {
  return {
    name: d.name,
    email: d.email,
    phone: d.phone,
    message: d.message,
    consentText: d.consentText,
    locale: d.locale,
  };
}

/**
 * Files a confirmed booking request once per key: a second filing with the same key (a repeated run of one
 * confirmed call) finds the first row and adds nothing (`created` false).
 */
export async function insertBookingRequest(
  tx: TenantTx,
  input: ContactDetails & { tenantId: string; conversationId: string | null; requestKey: string },
): Promise<{ row: LeadRow; created: boolean }> {
  const [row] = await tx
    .insert(leads)
    .values({ ...input, kind: "booking", source: "assistant" })
    .onConflictDoNothing()
    .returning();
  if (row) return { row, created: true };
  const [first] = await tx
    .select()
    .from(leads)
    .where(and(eq(leads.tenantId, input.tenantId), eq(leads.requestKey, input.requestKey)))
    .limit(1);
  if (!first) throw new Error("booking request insert returned nothing");
  return { row: first, created: false };
}

export type InboxFilters = { status?: LeadStatus | ""; kind?: LeadKind | ""; q?: string };

/** The Inbox, newest first; search looks at the name, e-mail, phone and message (case-insensitive). */
export async function listLeads(
  tx: TenantTx,
  tenantId: string,
  filters: InboxFilters,
  opts: { limit?: number; offset?: number } = {},
): Promise<{ items: LeadRow[]; more: boolean }> {
  const limit = Math.min(Math.max(opts.limit ?? 50, 1), 200);
  const where: SQL[] = [eq(leads.tenantId, tenantId)];
  if (filters.status) where.push(eq(leads.status, filters.status));
  if (filters.kind) where.push(eq(leads.kind, filters.kind));
  const q = filters.q?.trim();
  if (q) {
    // The visitor's own words may hold % or _; escaped so they match themselves.
    const like = `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    where.push(
      sql`(${leads.name} ilike ${like} or ${leads.email} ilike ${like} or ${leads.phone} ilike ${like} or ${leads.message} ilike ${like})`,
    );
  }
  const rows = await tx
    .select()
    .from(leads)
    .where(and(...where))
    .orderBy(desc(leads.createdAt), desc(leads.id))
    .limit(limit + 1)
    .offset(Math.max(0, opts.offset ?? 0));
  return { items: rows.slice(0, limit), more: rows.length > limit };
}

export async function getLead(tx: TenantTx, tenantId: string, id: string): Promise<LeadRow | null> {
  if (!isUuid(id)) return null;
  const [row] = await tx
    .select()
    .from(leads)
    .where(and(eq(leads.tenantId, tenantId), eq(leads.id, id)))
    .limit(1);
  return row ?? null;
}

/** Marks a lead handled (by whom, when) or new again; returns the row before the change, or null. */
export async function setLeadStatus(
  tx: TenantTx,
  tenantId: string,
  id: string,
  status: LeadStatus,
  by: { id: string; email: string },
): Promise<LeadRow | null> {
  const before = await getLead(tx, tenantId, id);
  if (!before) return null;
  const handled = status === "handled";
  await tx
    .update(leads)
    .set({
      status,
      handledBy: handled ? by.id : null,
      handledByLabel: handled ? by.email : "",
      handledAt: handled ? new Date() : null,
      updatedAt: new Date(),
    })
    .where(and(eq(leads.tenantId, tenantId), eq(leads.id, id)));
  return before;
}

/** Every lead created in [from, until), oldest first, for the Inbox export. */
export async function leadsInRange(
  tx: TenantTx,
  tenantId: string,
  range: { from: Date; until: Date },
): Promise<LeadRow[]> {
  return tx
    .select()
    .from(leads)
    .where(
      and(
        eq(leads.tenantId, tenantId),
        sql`${leads.createdAt} >= ${range.from.toISOString()}::timestamptz`,
        sql`${leads.createdAt} < ${range.until.toISOString()}::timestamptz`,
      ),
    )
    .orderBy(leads.createdAt, leads.id);
}

export type VisibleMessage = { role: MessageRole; content: string; createdAt: Date };

/**
 * The conversations as their visitors saw them: visitor messages and answers with text, in order, without
 * tool traces or token counts. One statement for all of the Inbox page's conversations.
 */
export async function visibleConversations(
  tx: TenantTx,
  tenantId: string,
  conversationIds: string[],
): Promise<Map<string, VisibleMessage[]>> {
  const ids = [...new Set(conversationIds.filter(isUuid))];
  const out = new Map<string, VisibleMessage[]>();
  if (ids.length === 0) return out;
  const rows = await tx
    .select({
      conversationId: messages.conversationId,
      role: messages.role,
      content: messages.content,
      createdAt: messages.createdAt,
    })
    .from(messages)
    .where(and(eq(messages.tenantId, tenantId), inArray(messages.conversationId, ids)))
    .orderBy(messages.createdAt, messages.id);
  for (const r of rows) {
    if (!r.content.trim()) continue;
    const list = out.get(r.conversationId) ?? [];
    list.push({ role: r.role, content: r.content, createdAt: r.createdAt });
    out.set(r.conversationId, list);
  }
  return out;
}

/** Records whether the business was told about a lead by mail, and why not when it failed. */
export async function setLeadMail(
  tx: TenantTx,
  tenantId: string,
  id: string,
  mail: { status: LeadMailStatus; error: string },
): Promise<void> {
  await tx
    .update(leads)
    .set({ mailStatus: mail.status, mailError: mail.error.slice(0, 500) })
    .where(and(eq(leads.tenantId, tenantId), eq(leads.id, id)));
}
