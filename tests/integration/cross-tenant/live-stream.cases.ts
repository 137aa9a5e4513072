import type { MatrixCases } from "./harness";

// The live streams (issue #28). The console's stream (/api/admin/[tenant]/live/events) has only [tenant], so
// the matrix tries it with B's slug by itself; the visitor's stream names a conversation, B's here.
const W = "src/app/api/widget/[key]";

export const cases: MatrixCases = {
  widget: {
    [`${W}/conversations/[id]/events/route.ts#GET`]: {
      kind: "visitor",
      params: (b) => ({ id: b.conversationId }),
    },
  },
};
