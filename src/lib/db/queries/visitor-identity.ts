import "server-only";
import { and, desc, eq, sql } from "drizzle-orm";
import type { TenantTx } from "../client";
import { conversations, type SealedSecret, tenants, type VerifiedVisitor } from "../schema";

// The business's visitor identity settings and the conversations of a verified visitor. Every call runs inside
// forTenant: RLS shows a tenant only its own row and conversations; the id filter says which row we mean.

export type IdentityStatus = { secretSetAt: string | null; required: boolean };

/** What the admin may see: whether a secret exists and since when, never the sealed value. */
export async function getIdentityStatus(tx: TenantTx, tenantId: string): Promise<IdentityStatus | null> {
  const [row] = await tx
    .select({ secret: tenants.visitorIdentitySecret, required: tenants.visitorIdentityRequired })
    .from(tenants)
    .where(eq(tenants.id, tenantId))
    .limit(1);
  return row ? { secretSetAt: row.secret?.setAt ?? null, required: row.required } : null;
}

export async function saveIdentitySecret(
  tx: TenantTx,
  tenantId: string,
  sealed: SealedSecret | null,
): Promise<void> {
  await tx
    .update(tenants)
    .set({ visitorIdentitySecret: sealed, updatedAt: new Date() })
    .where(eq(tenants.id, tenantId));
}

/** Returns whether the switch changed. */
export async function saveIdentityRequired(
  tx: TenantTx,
  tenantId: string,
  required: boolean,
): Promise<boolean> {
  const rows = await tx
    .update(tenants)
    .set({ visitorIdentityRequired: required, updatedAt: new Date() })
    .where(
      and(eq(tenants.id, tenantId), sql`${tenants.visitorIdentityRequired} is distinct from ${required}`),
    )
    .returning({ id: tenants.id });
  return rows.length > 0;
}

/** The verified visitor's most recent web conversation, which a new device opens. */
export async function latestConversationOf(tx: TenantTx, visitorId: string): Promise<string | null> {
  const [row] = await tx
    .select({ id: conversations.id })
    .from(conversations)
    .where(and(eq(conversations.visitorId, visitorId), eq(conversations.channel, "web")))
    .orderBy(desc(conversations.lastActivityAt))
    .limit(1);
  return row?.id ?? null;
}

/** Records who the verified visitor is on their conversation; writes only when it changed. */
export async function markConversationVerified(
  tx: TenantTx,
  conversationId: string,
  visitor: VerifiedVisitor,
): Promise<void> {
  await tx
    .update(conversations)
    .set({ verifiedVisitor: visitor })
    .where(
      and(
        eq(conversations.id, conversationId),
        sql`${conversations.verifiedVisitor} is distinct from ${JSON.stringify(visitor)}::jsonb`,
      ),
    );
}

/** Who the business's site vouched for in this conversation (for events about it); null when anonymous. */
export async function verifiedVisitorOf(
  tx: TenantTx,
  conversationId: string,
): Promise<VerifiedVisitor | null> {
  const [row] = await tx
    .select({ v: conversations.verifiedVisitor })
    .from(conversations)
    .where(eq(conversations.id, conversationId))
    .limit(1);
  return row?.v ?? null;
}
