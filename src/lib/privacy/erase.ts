import "server-only";
import { randomUUID } from "node:crypto";
import { z } from "zod";
import { assertRole, auditedTx, type TenantContext } from "../auth/access";
import { forgetLeadMail } from "../db/queries/outbox";
import { forgetVisitorCounters } from "../db/queries/rate-limits";
import {
  deleteVisitorRows,
  erasedVisitorsForUpdate,
  leadContacts,
  saveErasedVisitors,
} from "../db/queries/visitor-data";
import { AppError } from "../errors";
import { log } from "../log";
import { withErasedVisitors } from "../security/erased-visitors";
import { publishEvent } from "../webhooks/publish";
import { foundNothing, keysFor, type VisitorQuery, visitorQuerySchema } from "./identify";

// Erasing one visitor on request (GDPR art. 17), in one tenant transaction: every row of every table that
// references them is deleted (src/lib/db/queries/visitor-data.ts), their widget token stops being honoured so
// the widget starts afresh (src/lib/security/erased-visitors.ts), the business's webhooks hear
// `visitor.erased` (ids of nothing that still exists, counts, no personal data) and the audit log keeps who
// erased how much and when, never the handle or the data. The month's token usage is a separate count per
// month (usage_monthly) that names nobody, so the budget stays as it was.

export const eraseVisitorSchema = visitorQuerySchema.extend({
  confirm: z.string().trim().max(500).default(""),
});

export type Erasure = { erasureId: string; counts: Record<string, number> };

const same = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();

export async function eraseVisitorData(
  ctx: TenantContext,
  input: VisitorQuery & { confirm: string },
): Promise<Erasure> {
  assertRole(ctx, "admin");
  if (!same(input.confirm, input.value)) {
    const message = "Type the same e-mail, number, id or link again to confirm.";
    throw new AppError("invalid_input", message, { fieldErrors: { confirm: [message] } });
  }
  const q: VisitorQuery = { by: input.by, value: input.value };
  const done = await auditedTx(ctx, async (tx, record) => {
    const keys = await keysFor(tx, ctx.tenant.id, q);
    if (foundNothing(keys)) throw new AppError("not_found", "Nothing is stored about this visitor.");
    const contacts = await leadContacts(tx, ctx.tenant.id, keys);
    const counts = await deleteVisitorRows(tx, ctx.tenant.id, keys);
    const now = new Date();
    const erased = await erasedVisitorsForUpdate(tx, ctx.tenant.id);
    await saveErasedVisitors(
      tx,
      ctx.tenant.id,
      withErasedVisitors(erased, ctx.tenant.id, keys.visitorIds, now),
    );
    const erasureId = randomUUID();
    await publishEvent(tx, {
      tenantId: ctx.tenant.id,
      type: "visitor.erased",
      data: { erasure: { id: erasureId, erasedAt: now.toISOString(), counts } },
      dedupeKey: `erasure:${erasureId}`,
    });
    await record("visitor.erased", { target: erasureId, details: { by: q.by, counts } });
    return { erasureId, counts, contacts, visitorIds: keys.visitorIds };
  });
  // Platform data outside the tenant's transaction, removed right after it: the platform's own copy of the
  // lead notices (kept only without SMTP; the outbox's 30-day purge takes it otherwise) and the visitor's rate
  // counters (a minute's worth).
  try {
    await forgetLeadMail(ctx.db.platform, ctx.tenant.id, done.contacts);
    await forgetVisitorCounters(ctx.db.platform, ctx.tenant.id, done.visitorIds);
  } catch (err) {
    log().error({ err, tenantId: ctx.tenant.id }, "could not forget an erased visitor's platform records");
  }
  return { erasureId: done.erasureId, counts: done.counts };
}
