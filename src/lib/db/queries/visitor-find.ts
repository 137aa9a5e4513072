import "server-only";
import { and, eq, inArray, or, type SQL, sql } from "drizzle-orm";
import type { TenantTx } from "../client";
import { channelConnections, channelContacts, conversations, leads } from "../schema";

// Who "this visitor" is, for a request to see or erase their data: the conversations and contact requests
// that belong to them. The owner names the visitor by one handle (an e-mail, a phone number, a verified id, a
// conversation); what it matches is widened once to every conversation under the same visitor id, since one
// anonymous visitor (one browser) or one phone number on a channel is one person to the business. Tenant path
// only: RLS limits every statement to the tenant; the tenant_id filters keep to the tenant-leading indexes.

/** What the handle matched directly; `visitorIds` are channel hashes or verified ids computed from it. */
export type VisitorSeed = {
  email?: string;
  /** Digits only, for contact requests' phone numbers and channel contacts' addresses. */
  phoneDigits?: string;
  verifiedId?: string;
  conversationId?: string;
  visitorIds?: string[];
};

export type VisitorKeys = {
  conversationIds: string[];
  visitorIds: string[];
  leadIds: string[];
};

/** The tenant's channel connections, to hash a phone number or chat id the way each channel does. */
export async function channelConnectionIds(
  tx: TenantTx,
  tenantId: string,
): Promise<{ id: string; channel: string }[]> {
  return tx
    .select({ id: channelConnections.id, channel: channelConnections.channel })
    .from(channelConnections)
    .where(eq(channelConnections.tenantId, tenantId));
}

function seedConditions(seed: VisitorSeed): SQL[] {
  const c: SQL[] = [];
  if (seed.conversationId) c.push(eq(conversations.id, seed.conversationId));
  if (seed.visitorIds?.length) c.push(inArray(conversations.visitorId, seed.visitorIds));
  if (seed.verifiedId) c.push(sql`${conversations.verifiedVisitor}->>'id' = ${seed.verifiedId}`);
  if (seed.email) c.push(sql`lower(${conversations.verifiedVisitor}->>'email') = ${seed.email}`);
  return c;
}

async function seedLeads(tx: TenantTx, tenantId: string, seed: VisitorSeed) {
  const c: SQL[] = [];
  if (seed.email) c.push(sql`lower(${leads.email}) = ${seed.email}`);
  if (seed.phoneDigits) c.push(sql`regexp_replace(${leads.phone}, '[^0-9]', '', 'g') = ${seed.phoneDigits}`);
  if (c.length === 0) return [];
  return tx
    .select({ id: leads.id, conversationId: leads.conversationId })
    .from(leads)
    .where(and(eq(leads.tenantId, tenantId), or(...c)));
}

async function seedContacts(tx: TenantTx, tenantId: string, digits: string | undefined) {
  if (!digits) return [];
  return tx
    .select({ conversationId: channelContacts.conversationId })
    .from(channelContacts)
    .where(and(eq(channelContacts.tenantId, tenantId), eq(channelContacts.address, digits)));
}

/** Everything the handle leads to: the visitor ids, all their conversations, and their contact requests. */
export async function resolveVisitor(
  tx: TenantTx,
  tenantId: string,
  seed: VisitorSeed,
): Promise<VisitorKeys> {
  const foundLeads = await seedLeads(tx, tenantId, seed);
  const contacts = await seedContacts(tx, tenantId, seed.phoneDigits);
  const seedIds = [
    ...foundLeads.map((l) => l.conversationId),
    ...contacts.map((c) => c.conversationId),
  ].filter((id): id is string => !!id);
  const conds = seedConditions(seed);
  if (seedIds.length) conds.push(inArray(conversations.id, seedIds));
  const direct = conds.length
    ? await tx
        .select({ id: conversations.id, visitorId: conversations.visitorId })
        .from(conversations)
        .where(and(eq(conversations.tenantId, tenantId), or(...conds)))
    : [];
  const visitorIds = [...new Set([...(seed.visitorIds ?? []), ...direct.map((c) => c.visitorId)])];
  const all = visitorIds.length
    ? await tx
        .select({ id: conversations.id })
        .from(conversations)
        .where(and(eq(conversations.tenantId, tenantId), inArray(conversations.visitorId, visitorIds)))
    : [];
  const conversationIds = [...new Set([...direct.map((c) => c.id), ...all.map((c) => c.id)])];
  const linked = conversationIds.length
    ? await tx
        .select({ id: leads.id })
        .from(leads)
        .where(and(eq(leads.tenantId, tenantId), inArray(leads.conversationId, conversationIds)))
    : [];
  const leadIds = [...new Set([...foundLeads.map((l) => l.id), ...linked.map((l) => l.id)])];
  return { conversationIds, visitorIds, leadIds };
}
