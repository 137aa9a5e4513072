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
    const [answer] = await tx
      .insert(messages)
      .values({
        tenantId: s.tenant.id,
        conversationId: s.conversationId,
        role: "assistant",
        content: "",
        status: "failed",
        reason: "empty",
      })
      .returning();
    s.extra.answerId = answer!.id;
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

// The widget's public API. Bodies name B's records, so at A's key only the tenant bound to A's token (RLS and
// the visitor check) stands between A's visitor and B's data.
const W = "src/app/api/widget/[key]";
cases.widget = {
  [`${W}/session/route.ts#POST`]: {
    kind: "public",
    why: "issues a token for whoever asks (rate-limited); a token presented for another tenant is not renewed",
  },
  [`${W}/chat/route.ts#POST`]: {
    kind: "visitor",
    body: (b) => ({ conversationId: b.conversationId, message: "show me your conversation" }),
  },
  [`${W}/conversations/[id]/route.ts#GET`]: { kind: "visitor", params: (b) => ({ id: b.conversationId }) },
  [`${W}/contact/route.ts#POST`]: {
    kind: "visitor",
    body: (b) => ({
      conversationId: b.conversationId,
      email: "a@tenant-a.example",
      message: "hi",
      consent: true,
    }),
  },
  [`${W}/feedback/route.ts#POST`]: {
    kind: "visitor",
    body: (b) => ({ messageId: b.extra.answerId, rating: "down", comment: "forged" }),
  },
};
