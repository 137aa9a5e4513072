import type { World } from "../cross-tenant/harness";

// What the viewer-role matrix (tests/integration/viewer-role-matrix.test.ts) does with each use case that
// acts for a caller. Keyed "src/lib/…/file.ts#function"; the matrix fails for a discovered use case without an
// entry here, and for an entry whose use case no longer exists.
//
// - "refused": changes something (or hands out data only admins may take away). The matrix calls it with a
//   viewer's context of tenant A followed by `args`; it must throw AppError("forbidden") with the role
//   refusal (so a use case that looks anything up before the role fails here) and leave every table as it
//   was. `min` is the role it needs; "operator" for the operator's use cases (called by a member who is no
//   operator).
// - "read-only": reads only. The matrix calls it as a viewer with `args` and checks that nothing changed.
// - "own-account": changes only the caller's own user row, so every member may; say why.

type Args = (w: World) => unknown[];

export type ViewerCase =
  | { kind: "refused"; min: "admin" | "owner" | "operator"; args: Args }
  | { kind: "read-only"; args: Args }
  | { kind: "own-account"; why: string };

const SOME_ID = "00000000-0000-4000-8000-00000000abcd";
const HOOK = { url: "https://hooks.example.org/catch/1", description: "", events: ["lead.created"] };

const L = "src/lib";

export const viewerCases: Record<string, ViewerCase> = {
  // The live takeover (issue #28): viewers watch the console, they never answer or move a conversation.
  [`${L}/live/takeover.ts#claimConversation`]: {
    kind: "refused",
    min: "admin",
    args: (w) => [{ conversationId: w.a.conversationId }],
  },
  [`${L}/live/takeover.ts#assignConversation`]: {
    kind: "refused",
    min: "admin",
    args: (w) => [{ conversationId: w.a.conversationId, agentId: w.a.owner.id }],
  },
  [`${L}/live/takeover.ts#handBackConversation`]: {
    kind: "refused",
    min: "admin",
    args: (w) => [{ conversationId: w.a.conversationId }],
  },
  [`${L}/live/takeover.ts#closeLiveConversation`]: {
    kind: "refused",
    min: "admin",
    args: (w) => [{ conversationId: w.a.conversationId }],
  },
  [`${L}/live/reply.ts#sendAgentReply`]: {
    kind: "refused",
    min: "admin",
    args: (w) => [{ conversationId: w.a.conversationId, text: "A viewer's reply" }],
  },
  [`${L}/live/presence.ts#recordPresence`]: {
    kind: "refused",
    min: "admin",
    args: () => [{ away: "true" }],
  },
  [`${L}/live/settings.ts#updateLiveSettings`]: {
    kind: "refused",
    min: "admin",
    args: () => [
      { maxPerAgent: 2, escalateAfterMin: 9, timeZone: "", open: "", close: "", savedReplies: "" },
    ],
  },
  [`${L}/live/reply.ts#addInternalNote`]: {
    kind: "refused",
    min: "admin",
    args: (w) => [{ conversationId: w.a.conversationId, text: "A viewer's note" }],
  },

  [`${L}/accounts/users.ts#changePassword`]: { kind: "own-account", why: "the caller's own password" },
  [`${L}/accounts/users.ts#renameUser`]: { kind: "own-account", why: "the caller's own name" },
  [`${L}/accounts/users.ts#signOutEverywhere`]: { kind: "own-account", why: "the caller's own sessions" },
  [`${L}/accounts/photo.ts#setProfilePhoto`]: { kind: "own-account", why: "the caller's own photo" },
  [`${L}/accounts/photo.ts#removeProfilePhoto`]: { kind: "own-account", why: "the caller's own photo" },

  [`${L}/bot/settings.ts#updateBotSettings`]: {
    kind: "refused",
    min: "admin",
    args: () => [
      {
        displayName: "Viewer bot",
        greeting: "",
        instructions: "",
        model: "",
        language: "en",
        color: "#0f766e",
      },
    ],
  },
  [`${L}/embed/site-domains.ts#updateSiteDomains`]: {
    kind: "refused",
    min: "admin",
    args: () => [["viewer.example"]],
  },
  // Verified visitors: the identity secret lets its holder speak as any signed-in customer; owners only.
  [`${L}/embed/visitor-identity.ts#rotateVisitorIdentitySecret`]: {
    kind: "refused",
    min: "owner",
    args: () => [],
  },
  [`${L}/embed/visitor-identity.ts#removeVisitorIdentitySecret`]: {
    kind: "refused",
    min: "owner",
    args: () => [],
  },
  [`${L}/embed/visitor-identity.ts#setVisitorIdentityRequired`]: {
    kind: "refused",
    min: "owner",
    args: () => [false],
  },
  [`${L}/embed/visitor-identity.ts#visitorIdentityStatus`]: { kind: "read-only", args: () => [] },

  [`${L}/insights/export-conversations.ts#exportConversations`]: {
    kind: "refused",
    min: "admin",
    args: () => [new URL("http://localhost/api/admin/x/export?format=json")],
  },
  [`${L}/insights/manage.ts#deleteConversation`]: {
    kind: "refused",
    min: "admin",
    args: (w) => [w.a.conversationId],
  },
  [`${L}/insights/manage.ts#updateRetention`]: { kind: "refused", min: "admin", args: () => [1] },
  [`${L}/insights/manage.ts#updateKindRetention`]: {
    kind: "refused",
    min: "admin",
    args: () => [{ leadRetentionDays: 1, noteRetentionDays: 1 }],
  },
  [`${L}/tenants/time-zone.ts#updateTimeZone`]: {
    kind: "refused",
    min: "admin",
    args: () => ["Europe/Madrid"],
  },
  [`${L}/insights/unanswered.ts#markUnansweredHandled`]: {
    kind: "refused",
    min: "admin",
    args: () => [[SOME_ID]],
  },

  // One visitor's data (issue 46): finding, exporting and erasing a person's whole record is for admins and
  // owners; a viewer may read conversations one by one, never take a person's data out or delete it.
  [`${L}/privacy/find.ts#findVisitor`]: {
    kind: "refused",
    min: "admin",
    args: (w) => [{ by: "conversation", value: w.a.conversationId }],
  },
  [`${L}/privacy/export.ts#collectVisitorData`]: {
    kind: "refused",
    min: "admin",
    args: (w) => [{ by: "conversation", value: w.a.conversationId }],
  },
  [`${L}/privacy/export.ts#exportVisitorData`]: {
    kind: "refused",
    min: "admin",
    args: (w) => [{ by: "conversation", value: w.a.conversationId, format: "json" }],
  },
  [`${L}/privacy/erase.ts#eraseVisitorData`]: {
    kind: "refused",
    min: "admin",
    args: (w) => [{ by: "conversation", value: w.a.conversationId, confirm: w.a.conversationId }],
  },
  [`${L}/leads/export.ts#exportLeads`]: {
    kind: "refused",
    min: "admin",
    args: () => [new URL("http://localhost/api/admin/x/inbox/export?format=csv")],
  },
  [`${L}/leads/inbox.ts#setLeadHandled`]: {
    kind: "refused",
    min: "admin",
    args: () => [{ id: SOME_ID, status: "handled" }],
  },

  // The console's live stream: every member may watch (the stream is closed at once by the aborted signal).
  [`${L}/webhooks/views.ts#loadEndpoint`]: { kind: "refused", min: "admin", args: () => [SOME_ID] },
  [`${L}/tenants/overview.ts#loadOverview`]: { kind: "read-only", args: () => [] },
  [`${L}/live/console.ts#loadLiveConsole`]: { kind: "read-only", args: () => [] },
  [`${L}/live/watch.ts#watchLiveEvents`]: {
    kind: "read-only",
    args: () => [{ after: null, signal: AbortSignal.abort() }],
  },

  [`${L}/knowledge/answers.ts#addCuratedAnswer`]: {
    kind: "refused",
    min: "admin",
    args: () => [{ questions: ["Parking?"], answer: "Behind the shop.", lang: "en" }],
  },
  [`${L}/knowledge/answers.ts#updateCuratedAnswer`]: {
    kind: "refused",
    min: "admin",
    args: () => [SOME_ID, { questions: "Forged?", answer: "Forged", lang: "en" }],
  },
  [`${L}/knowledge/answers.ts#deleteCuratedAnswer`]: { kind: "refused", min: "admin", args: () => [SOME_ID] },
  [`${L}/knowledge/sources.ts#resyncNow`]: { kind: "refused", min: "admin", args: () => [] },
  [`${L}/knowledge/sources.ts#setPageExcluded`]: {
    kind: "refused",
    min: "admin",
    args: () => [SOME_ID, true],
  },
  [`${L}/knowledge/uploads.ts#uploadDocument`]: {
    kind: "refused",
    min: "admin",
    args: () => [{ fileName: "notes.txt", bytes: new TextEncoder().encode("Parking is free.") }],
  },
  [`${L}/knowledge/uploads.ts#deleteDocument`]: { kind: "refused", min: "admin", args: () => [SOME_ID] },
  // Viewers may ask a test question: it searches and runs the pack's projection, and records nothing.
  // Test questions (issue 42): viewers read the list, the runs and the CSV export; they change nothing.
  [`${L}/test-questions/manage.ts#addTestQuestion`]: {
    kind: "refused",
    min: "admin",
    args: () => [{ question: "Parking?", mustContain: "free" }],
  },
  [`${L}/test-questions/manage.ts#updateTestQuestion`]: {
    kind: "refused",
    min: "admin",
    args: () => [SOME_ID, { question: "Forged?" }],
  },
  [`${L}/test-questions/manage.ts#deleteTestQuestion`]: {
    kind: "refused",
    min: "admin",
    args: () => [SOME_ID],
  },
  [`${L}/test-questions/manage.ts#seedTestQuestions`]: {
    kind: "refused",
    min: "admin",
    args: () => ["site"],
  },
  [`${L}/test-questions/manage.ts#importTestQuestions`]: {
    kind: "refused",
    min: "admin",
    args: () => ["question\r\nForged?\r\n"],
  },
  [`${L}/test-questions/manage.ts#exportTestQuestions`]: { kind: "read-only", args: () => [] },
  [`${L}/test-questions/jobs.ts#runTestQuestionsNow`]: {
    kind: "refused",
    min: "admin",
    args: () => [{ queue: null, env: {} }],
  },
  [`${L}/test-questions/views.ts#loadTestQuestionsView`]: { kind: "read-only", args: () => [] },
  [`${L}/test-questions/views.ts#loadTestRunView`]: { kind: "read-only", args: () => [SOME_ID] },
  [`${L}/knowledge/views.ts#askTestQuestion`]: { kind: "read-only", args: () => ["is parking free?"] },
  [`${L}/knowledge/views.ts#loadKnowledgeView`]: { kind: "read-only", args: () => [] },
  [`${L}/pack-settings/settings.ts#loadPackGroups`]: { kind: "read-only", args: () => [] },
  [`${L}/pack-settings/settings.ts#loadPackView`]: { kind: "read-only", args: () => ["get_business_info"] },
  [`${L}/pack-settings/settings.ts#updatePackSettings`]: {
    kind: "refused",
    min: "admin",
    args: () => [
      {
        packId: "get_business_info",
        enabled: true,
        values: { address: "Viewer street", phone: "+1 555 0199" },
        secrets: {},
      },
    ],
  },
  [`${L}/pack-settings/test-pack.ts#testPack`]: {
    kind: "refused",
    min: "admin",
    args: () => ["get_business_info", { topic: "phone" }],
  },
  [`${L}/pack-settings/toggle.ts#setPackEnabled`]: {
    kind: "refused",
    min: "admin",
    args: () => [{ packId: "get_business_info", enabled: false }],
  },

  [`${L}/team/invitations.ts#inviteMember`]: {
    kind: "refused",
    min: "owner",
    args: () => [{ email: "friend@viewer.test", role: "owner" }],
  },
  [`${L}/team/invitations.ts#pendingInvitations`]: { kind: "read-only", args: () => [] },
  [`${L}/team/invitations.ts#revokeInvitation`]: { kind: "refused", min: "owner", args: () => [SOME_ID] },
  [`${L}/team/members.ts#changeRole`]: {
    kind: "refused",
    min: "owner",
    args: (w) => [w.a.viewer.id, "owner"],
  },
  [`${L}/team/members.ts#deleteTenant`]: {
    kind: "refused",
    min: "owner",
    args: (w) => [w.a.tenant.slug],
  },
  [`${L}/team/members.ts#removeMember`]: { kind: "refused", min: "owner", args: (w) => [w.a.owner.id] },

  [`${L}/channels/connect.ts#connectWhatsApp`]: {
    kind: "refused",
    min: "admin",
    args: () => [{ phoneNumberId: "106540352299001", accessToken: "t", appSecret: "s", verifyToken: "v" }],
  },
  // Refused before Telegram is called (getMe, setWebhook).
  [`${L}/channels/connect.ts#connectTelegram`]: {
    kind: "refused",
    min: "admin",
    args: () => [{ botToken: "123456:ABCDEFGHIJKLMNOPQRSTUVWXYZ" }],
  },
  [`${L}/channels/connect.ts#disconnectChannel`]: { kind: "refused", min: "admin", args: () => ["whatsapp"] },
  [`${L}/channels/connect.ts#setChannelsPlatformEnabled`]: {
    kind: "refused",
    min: "operator",
    args: () => [false],
  },
  // Admins only: it calls the provider with the stored token.
  [`${L}/channels/check.ts#checkChannelConnection`]: {
    kind: "refused",
    min: "admin",
    args: () => ["whatsapp"],
  },
  [`${L}/channels/view.ts#listChannels`]: { kind: "read-only", args: () => [] },

  [`${L}/tenants/operator.ts#createBusiness`]: {
    kind: "refused",
    min: "operator",
    args: () => [{ name: "Viewer's shop", slug: "viewer-shop", ownerEmail: "viewer-shop@viewer.test" }],
  },
  [`${L}/tenants/operator-team.ts#operatorTeamView`]: {
    kind: "refused",
    min: "operator",
    args: (w) => [w.a.tenant.id],
  },
  [`${L}/tenants/operator-team.ts#resendInvitation`]: {
    kind: "refused",
    min: "operator",
    args: (w) => [w.a.tenant.id, "00000000-0000-4000-8000-000000000001"],
  },
  [`${L}/tenants/operator.ts#setKnowledgeLimits`]: {
    kind: "refused",
    min: "operator",
    args: (w) => [w.a.tenant.id, { uploadQuotaMb: 1, pageCap: 1 }],
  },
  [`${L}/tenants/operator.ts#setTenantLimits`]: {
    kind: "refused",
    min: "operator",
    args: (w) => [w.a.tenant.id, { monthlyTokenBudget: 1, rateLimits: {} }],
  },
  // Writes .env.local in development: refused before any local server is probed.
  [`${L}/setup/local-model.ts#adoptLocalModelServer`]: {
    kind: "refused",
    min: "operator",
    args: () => [{ preset: "ollama" }],
  },
  [`${L}/tenants/operator.ts#setTenantStatus`]: {
    kind: "refused",
    min: "operator",
    args: (w) => [w.a.tenant.id, "suspended"],
  },

  [`${L}/webhooks/endpoints.ts#sendTestWebhook`]: { kind: "refused", min: "admin", args: () => [SOME_ID] },
  [`${L}/webhooks/endpoints.ts#createWebhookEndpoint`]: { kind: "refused", min: "admin", args: () => [HOOK] },
  [`${L}/webhooks/endpoints.ts#deleteWebhookEndpoint`]: {
    kind: "refused",
    min: "admin",
    args: () => [SOME_ID],
  },
  [`${L}/webhooks/endpoints.ts#redeliverWebhook`]: { kind: "refused", min: "admin", args: () => [SOME_ID] },
  [`${L}/webhooks/endpoints.ts#rollWebhookSecret`]: { kind: "refused", min: "admin", args: () => [SOME_ID] },
  [`${L}/webhooks/endpoints.ts#setWebhookEndpointEnabled`]: {
    kind: "refused",
    min: "admin",
    args: () => [SOME_ID, false],
  },
  [`${L}/webhooks/endpoints.ts#updateWebhookEndpoint`]: {
    kind: "refused",
    min: "admin",
    args: () => [SOME_ID, HOOK],
  },
};
