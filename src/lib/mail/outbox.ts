import "server-only";
import type { DbHandle } from "../db/client";
import { purgeOutbox } from "../db/queries/outbox";

// How long the record of sent mail is kept. Long enough to answer "did the invitation go out last week?",
// short enough that addresses and kept links do not pile up. The retention job calls this.
export const OUTBOX_DAYS = 30;

export async function forgetOldMail(db: DbHandle, now = new Date()): Promise<number> {
  return purgeOutbox(db.platform, new Date(now.getTime() - OUTBOX_DAYS * 24 * 60 * 60 * 1000));
}
