import "server-only";
import { desc, eq, lt } from "drizzle-orm";
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
