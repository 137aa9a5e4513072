import type { MatrixCases } from "./harness";

// Conversations and usage.

const T = "src/app/(admin)/admin/[tenant]";

export const cases: MatrixCases = {
  actions: {
    [`${T}/conversations/actions.ts#deleteConversationAction`]: {
      kind: "tenant",
      form: (b) => ({ id: b.conversationId }),
    },
    [`${T}/settings/actions.ts#saveRetentionAction`]: {
      kind: "tenant",
      form: () => ({ retentionDays: "1" }),
    },
    [`${T}/settings/actions.ts#saveKindRetentionAction`]: {
      kind: "tenant",
      form: () => ({ leadRetentionDays: "1", noteRetentionDays: "1" }),
    },
    [`${T}/settings/actions.ts#saveTimeZoneAction`]: {
      kind: "tenant",
      form: () => ({ timeZone: "Asia/Tokyo" }),
    },
  },
  pages: {
    [`${T}/conversations/[id]/page.tsx`]: {
      params: (w) => [
        { tenant: w.b.tenant.slug, id: w.b.conversationId },
        { tenant: w.a.tenant.slug, id: w.b.conversationId },
      ],
    },
  },
};
