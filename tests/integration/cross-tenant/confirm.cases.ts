import { insertPendingCall } from "@/lib/db/queries/pending-calls";
import type { MatrixCases, Side, World } from "./harness";

// Confirmation cards (issue 41): both sides get a card waiting in their conversation, so a visitor of A
// naming B's conversation and B's call (at B's key, or at A's key with B's ids) aims at a real row of B,
// which must stay pending.

const W = "src/app/api/widget/[key]";

async function seed(w: World, s: Side) {
  const now = new Date();
  await w.db.forTenant(s.tenant.id, async (tx) => {
    const row = await insertPendingCall(tx, {
      tenantId: s.tenant.id,
      conversationId: s.conversationId,
      visitorMessageId: null,
      packId: "post_json",
      callId: `call_${s.tenant.slug}`,
      args: { cake: "Chocolate" },
      card: { title: "Order this cake?", fields: [{ label: "Cake", value: "Chocolate" }] },
      createdAt: now,
      expiresAt: new Date(now.getTime() + 10 * 60_000),
    });
    s.extra.pendingCallId = row.id;
  });
}

export const cases: MatrixCases = {
  async setup(w) {
    await seed(w, w.a);
    await seed(w, w.b);
  },
  widget: {
    [`${W}/conversations/[id]/confirm/route.ts#POST`]: {
      kind: "visitor",
      params: (b) => ({ id: b.conversationId }),
      body: (b) => ({ callId: b.extra.pendingCallId, decision: "confirm" }),
    },
  },
};
