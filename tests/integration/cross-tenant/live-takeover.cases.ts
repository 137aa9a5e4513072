import type { MatrixCases, Side } from "./harness";

// The live takeover (issue #28): the visitor's request for a person names a conversation (B's here), and the
// console's pages and actions aim at B's conversations with A's slug.
const W = "src/app/api/widget/[key]";
const L = "src/app/(admin)/admin/[tenant]/inbox/live/actions.ts";
const target = (b: Side) => ({ conversationId: b.conversationId });

export const cases: MatrixCases = {
  actions: {
    [`${L}#claimAction`]: { kind: "tenant", form: target },
    [`${L}#assignAction`]: { kind: "tenant", form: (b) => ({ ...target(b), agentId: b.owner.id }) },
    [`${L}#handBackAction`]: { kind: "tenant", form: target },
    [`${L}#closeAction`]: { kind: "tenant", form: target },
    [`${L}#replyAction`]: { kind: "tenant", form: (b) => ({ ...target(b), text: "Hello from A" }) },
    [`${L}#noteAction`]: { kind: "tenant", form: (b) => ({ ...target(b), text: "A's note" }) },
    [`${L}#presenceAction`]: { kind: "tenant", form: () => ({ away: "true" }) },
    [`${L}#liveSettingsAction`]: {
      kind: "tenant",
      form: () => ({ maxPerAgent: "2", escalateAfterMin: "9", savedReplies: "Hi | Hello from A" }),
    },
  },
  widget: {
    [`${W}/conversations/[id]/live/route.ts#POST`]: {
      kind: "visitor",
      params: (b) => ({ id: b.conversationId }),
    },
    // The menu's request names its conversation in the body (none before the first message).
    [`${W}/live/route.ts#POST`]: { kind: "visitor", body: (b) => ({ conversationId: b.conversationId }) },
  },
};
