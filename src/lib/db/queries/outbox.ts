import "server-only";
import { desc } from "drizzle-orm";
import type { Db } from "../client";
import { type MailStatus, mailOutbox } from "../schema";

// The record of outgoing mail (platform data: the operator reads it across tenants on the Outbox page).

export type OutboxRow = typeof mailOutbox.$inferSelect;

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

/** The newest mails first. */
export async function listOutbox(db: Db, limit = 50): Promise<OutboxRow[]> {
  return db.select().from(mailOutbox).orderBy(desc(mailOutbox.createdAt), desc(mailOutbox.id)).limit(limit);
}
