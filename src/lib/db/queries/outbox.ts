import "server-only";
import { and, desc, eq, lt, or, sql } from "drizzle-orm";
import type { Db } from "../client";
import { type MailStatus, mailOutbox, tenants } from "../schema";

// The record of outgoing mail (platform data: the operator reads it across tenants on the Outbox page).

export async function insertOutbox(
  db: Db,
  row: {
    tenantId: string | null;
    kind: string;
    toAddress: string;
    subject: string;
    bodyText: string | null;
    bodyHtml: string | null;
    status: MailStatus;
    error?: string;
  },
): Promise<string> {
  const [out] = await db
    .insert(mailOutbox)
    .values({ ...row, error: row.error ?? "" })
    .returning({ id: mailOutbox.id });
  if (!out) throw new Error("outbox insert returned nothing");
  return out.id;
}

/** The newest mails first, with the name of the business each is about. */
export async function listOutbox(db: Db, limit = 50) {
  return db
    .select({
      id: mailOutbox.id,
      kind: mailOutbox.kind,
      toAddress: mailOutbox.toAddress,
      subject: mailOutbox.subject,
      bodyText: mailOutbox.bodyText,
      status: mailOutbox.status,
      error: mailOutbox.error,
      createdAt: mailOutbox.createdAt,
      tenantId: mailOutbox.tenantId,
      tenantName: tenants.name,
      tenantTimeZone: tenants.timeZone,
    })
    .from(mailOutbox)
    .leftJoin(tenants, eq(tenants.id, mailOutbox.tenantId))
    .orderBy(desc(mailOutbox.createdAt), desc(mailOutbox.id))
    .limit(limit);
}

/** Forgets mails older than `before`: the record holds addresses (and, when kept, links) nobody needs for long. */
export async function purgeOutbox(db: Db, before: Date): Promise<number> {
  const rows = await db
    .delete(mailOutbox)
    .where(lt(mailOutbox.createdAt, before))
    .returning({ id: mailOutbox.id });
  return rows.length;
}

/**
 * Platform path: the kept copies of the business's lead notices about a visitor being erased (only kept when
 * the platform has no SMTP server; otherwise just an envelope addressed to the business), found by the
 * visitor's e-mail or phone in their text.
 */
export async function forgetLeadMail(db: Db, tenantId: string, contacts: readonly string[]): Promise<number> {
  const needles = contacts.filter((c) => c.trim().length >= 5);
  if (needles.length === 0) return 0;
  const gone = await db
    .delete(mailOutbox)
    .where(
      and(
        eq(mailOutbox.tenantId, tenantId),
        eq(mailOutbox.kind, "lead"),
        or(...needles.map((n) => sql`strpos(coalesce(${mailOutbox.bodyText}, ''), ${n}) > 0`)),
      ),
    )
    .returning({ id: mailOutbox.id });
  return gone.length;
}
