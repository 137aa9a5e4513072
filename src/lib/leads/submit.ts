import "server-only";
import { z } from "zod";
import { consentIn } from "@/shared/consent";
import { contactProblems, normaliseContact } from "@/shared/contact";
import { fill } from "@/shared/fill";
import { HANDOFF_STRINGS } from "@/shared/handoff-words";
import type { Lang } from "@/shared/languages";
import type { DbHandle } from "../db";
import { findVisitorConversation } from "../db/queries/conversations";
import { type LeadRow, saveLead } from "../db/queries/leads";
import { AppError } from "../errors";
import type { Logger } from "../log";
import { isMailAddress } from "../mail/send";
import { leadEvents, leadMail } from "./notify";
import { contactSettings } from "./settings";

// A visitor asks for a person: validate the form, store it as a lead of the visitor's own conversation (under
// RLS, in one transaction with the webhook event), then mail the business. Nothing here touches the token
// budget or the model.

const bodySchema = z.object({
  conversationId: z.uuid().nullish(),
  name: z.string().max(1000).optional(),
  email: z.string().max(1000).optional(),
  phone: z.string().max(1000).optional(),
  message: z.string().max(10_000).optional(),
  consent: z.boolean().optional(),
  source: z.enum(["menu", "assistant"]).optional(),
});

export type LeadRequest = {
  tenant: { id: string; name: string; slug: string; consents?: Partial<Record<string, string>> };
  visitorId: string;
  lang: Lang;
  body: unknown;
};

export async function submitLead(
  db: DbHandle,
  req: LeadRequest,
  log: Logger,
): Promise<{ lead: LeadRow; confirmation: string }> {
  const s = HANDOFF_STRINGS[req.lang];
  const parsed = bodySchema.safeParse(req.body);
  if (!parsed.success) throw new AppError("invalid_input", s.failed);
  const input = normaliseContact(parsed.data);

  const lead = await db.forTenant(req.tenant.id, async (tx) => {
    const settings = await contactSettings(tx);
    const problems = contactProblems(input, settings.consentText !== "");
    // The panel's check is deliberately light (bundle size); the server holds every address to the check
    // mail links and Reply-To headers need, so "x@y.test?bcc=…" never reaches the Inbox.
    if (input.email && !problems.email && !isMailAddress(input.email)) problems.email = "email_invalid";
    const fields = Object.entries(problems);
    if (fields.length > 0) {
      throw new AppError("invalid_input", s.problems[fields[0]![1]], {
        fieldErrors: Object.fromEntries(fields.map(([f, code]) => [f, [code]])),
      });
    }
    const conversationId = parsed.data.conversationId ?? null;
    // Only the visitor's own conversation; another one (or another tenant's) looks the same as none at all.
    if (conversationId && !(await findVisitorConversation(tx, conversationId, req.visitorId)))
      throw new AppError("not_found", s.failed);
    const row = await saveLead(tx, {
      tenantId: req.tenant.id,
      conversationId,
      source: parsed.data.source ?? "menu",
      name: input.name,
      email: input.email,
      phone: input.phone,
      message: input.message,
      // The sentence this visitor was shown, in their language.
      consentText: consentIn(req.tenant.consents, req.lang, settings.consentText),
      locale: req.lang,
    });
    return { row, notice: await leadEvents(tx, req.tenant, row) };
  });
  await leadMail(db, req.tenant, lead.row, lead.notice, log);
  return { lead: lead.row, confirmation: fill(s.sent, { name: req.tenant.name }) };
}
