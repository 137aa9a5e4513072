import type { MatrixCases } from "./harness";

// The live takeover (issue #28): the visitor's request for a person names a conversation (B's here), and the
// console's pages and actions aim at B's conversations with A's slug.
const W = "src/app/api/widget/[key]";

export const cases: MatrixCases = {
  widget: {
    [`${W}/conversations/[id]/live/route.ts#POST`]: {
      kind: "visitor",
      params: (b) => ({ id: b.conversationId }),
    },
  },
};
