import type { MatrixCases } from "./harness";

// One visitor's data (issue 46): the Visitor data page and its export route take only [tenant], so the matrix
// probes them with B's slug by itself; the cases here add A's slug with B's conversation as the handle, which
// must find, export and erase nothing of B.

const T = "src/app/(admin)/admin/[tenant]";

export const cases: MatrixCases = {
  actions: {
    [`${T}/privacy/actions.ts#eraseVisitorAction`]: {
      kind: "tenant",
      form: (b) => ({ by: "conversation", value: b.conversationId, confirm: b.conversationId }),
    },
  },
  routes: {
    "src/app/api/admin/[tenant]/privacy/export/route.ts#GET": {
      params: (w) => [{ tenant: w.b.tenant.slug }, { tenant: w.a.tenant.slug }],
      query: (w) => `?by=conversation&value=${w.b.conversationId}&format=json`,
    },
  },
};
