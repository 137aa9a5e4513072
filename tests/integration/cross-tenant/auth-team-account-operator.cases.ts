import { expect } from "vitest";
import type { MatrixCases } from "./harness";

// Sign-in, team, account, operator and the admin landing page.

const T = "src/app/(admin)/admin/[tenant]";
const OP = "src/app/(admin)/admin/operator";

export const cases: MatrixCases = {
  actions: {
    "src/app/signin/actions.ts#signInAction": { kind: "public", why: "signs in; no tenant involved" },
    "src/app/signin/actions.ts#signOutAction": { kind: "public", why: "clears this browser's cookie only" },
    "src/app/signup/actions.ts#signUpAction": {
      kind: "public",
      why: "creates a new user and their own tenant",
    },

    [`${T}/team/actions.ts#inviteMemberAction`]: {
      kind: "tenant",
      form: () => ({ email: "intruder@evil.test", role: "owner" }),
    },
    [`${T}/team/actions.ts#changeRoleAction`]: {
      kind: "tenant",
      form: (b) => ({ userId: b.viewer.id, role: "owner" }),
    },
    [`${T}/team/actions.ts#removeMemberAction`]: { kind: "tenant", form: (b) => ({ userId: b.viewer.id }) },
    [`${T}/team/actions.ts#deleteTenantAction`]: {
      kind: "tenant",
      form: (b) => ({ confirm: b.tenant.slug }),
    },

    [`${T}/account/actions.ts#updateNameAction`]: {
      kind: "tenant",
      form: () => ({ name: "Renamed by a probe" }),
    },
    [`${T}/account/actions.ts#changePasswordAction`]: {
      kind: "tenant",
      form: () => ({
        currentPassword: "correct horse battery staple",
        newPassword: "probe password 123",
        confirmPassword: "probe password 123",
      }),
    },
    [`${T}/account/actions.ts#signOutEverywhereAction`]: { kind: "tenant", form: () => ({}) },
    // The caller's own photo: B's slug must be refused before the file is read.
    [`${T}/account/actions.ts#updatePhotoAction`]: { kind: "tenant", form: () => ({ photo: "not a file" }) },
    [`${T}/account/actions.ts#removePhotoAction`]: { kind: "tenant", form: () => ({}) },

    [`${OP}/actions.ts#createTenantAction`]: {
      kind: "operator",
      form: (b) => ({ name: "Forged", slug: `${b.tenant.slug}-forged`, ownerEmail: "someone@evil.test" }),
    },
    [`${OP}/actions.ts#setStatusAction`]: {
      kind: "operator",
      form: (b) => ({ tenantId: b.tenant.id, status: "suspended" }),
    },
    // Runs the model check: a tenant member must be refused before any model server is called.
    [`${OP}/models/actions.ts#checkModelsAction`]: { kind: "operator", form: () => ({}) },
    // Writes .env.local in development: a tenant member must be refused before anything is probed or written.
    [`${OP}/models/actions.ts#adoptLocalModelAction`]: {
      kind: "operator",
      form: () => ({ preset: "ollama" }),
    },
    [`${OP}/actions.ts#setLimitsAction`]: {
      kind: "operator",
      form: (b) => ({ tenantId: b.tenant.id, monthlyTokenBudget: "1", visitorPerMin: "1" }),
    },
    // Mails a new link: a tenant member must be refused before any invitation is read or replaced.
    [`${OP}/actions.ts#resendInvitationAction`]: {
      kind: "operator",
      form: (b) => ({ tenantId: b.tenant.id, invitationId: "00000000-0000-4000-8000-000000000001" }),
    },
    [`${OP}/actions.ts#setKnowledgeLimitsAction`]: {
      kind: "operator",
      form: (b) => ({ tenantId: b.tenant.id, uploadQuotaMb: "1", pageCap: "1" }),
    },
  },
  pages: {
    "src/app/(admin)/admin/page.tsx": {
      params: () => [{}],
      // Not about one tenant: it sends the member to their own business, never to another.
      expect: (outcome, w) => expect(outcome).toEqual({ kind: "redirect", url: `/admin/${w.a.tenant.slug}` }),
    },
    [`${OP}/[tenantId]/page.tsx`]: {
      params: (w) => [{ tenantId: w.b.tenant.id }, { tenantId: w.a.tenant.id }],
    },
  },
};
