import { leads, messages } from "@/lib/db/schema";
import type { MatrixCases, Side } from "./harness";

// Inbox and Unanswered questions. Each side gets a contact request and a visitor question whose answer
// failed, so B's ids exist and A's slug with B's ids has something to aim at.

const T = "src/app/(admin)/admin/[tenant]";

async function seed(w: Parameters<NonNullable<MatrixCases["setup"]>>[0], s: Side) {
  await w.db.forTenant(s.tenant.id, async (tx) => {
    const [lead] = await tx
      .insert(leads)
      .values({
        tenantId: s.tenant.id,
        conversationId: s.conversationId,
        email: `visitor@${s.tenant.slug}.test`,
        message: "Please call me",
      })
      .returning();
    const [question] = await tx
      .insert(messages)
      .values({
        tenantId: s.tenant.id,
        conversationId: s.conversationId,
        role: "user",
        content: "Do you deliver on Sundays?",
        createdAt: new Date(Date.now() - 1000),
      })
      .returning();
    await tx.insert(messages).values({
      tenantId: s.tenant.id,
      conversationId: s.conversationId,
      role: "assistant",
      content: "",
      status: "failed",
      reason: "empty",
    });
    s.extra.leadId = lead!.id;
    s.extra.questionId = question!.id;
  });
}

export const cases: MatrixCases = {
  setup: async (w) => {
    await seed(w, w.a);
    await seed(w, w.b);
  },
  actions: {
    [`${T}/inbox/actions.ts#setLeadStatusAction`]: {
      kind: "tenant",
      form: (b) => ({ id: b.extra.leadId!, status: "handled" }),
    },
    [`${T}/unanswered/actions.ts#markUnansweredAction`]: {
      kind: "tenant",
      form: (b) => ({ questionIds: [b.extra.questionId!] }),
    },
  },
};
