import { renderToStaticMarkup } from "react-dom/server";
import { expect } from "vitest";
import { insertInvitation } from "@/lib/db/queries/invitations";
import { insertPasswordReset } from "@/lib/db/queries/password-resets";
import { insertPendingSignUp, setPendingSignUpToken } from "@/lib/db/queries/pending-sign-ups";
import { newLinkToken } from "@/lib/security/link-token";
import type { MatrixCases, Side, World } from "./harness";

// Invitations, password resets, sign-up confirmations and the Outbox. Both sides get a pending invitation, B's
// owner a reset link and B's invitation a pending sign-up with its confirmation link;
// the probes use B's ids where a token belongs, the stored hash instead of the token, and token-shaped noise.
// B's real tokens are not among them: holding the link is the permission, by design.

const T = "src/app/(admin)/admin/[tenant]";

async function invite(w: World, s: Side) {
  const { hash } = newLinkToken();
  const inv = await w.db.forTenant(s.tenant.id, (tx) =>
    insertInvitation(tx, {
      tenantId: s.tenant.id,
      email: `invited@${s.tenant.slug}.test`,
      role: "admin",
      tokenHash: hash,
      invitedBy: s.owner.id,
      expiresAt: new Date(Date.now() + 86_400_000),
    }),
  );
  s.extra.invitationId = inv.id;
  s.extra.invitationHash = hash;
}

const forgedTokens = (w: World) => [
  w.b.extra.invitationId!,
  w.b.extra.invitationHash!,
  w.b.extra.resetHash!,
  w.b.extra.pendingId!,
  w.b.extra.pendingHash!,
  "A".repeat(43),
  "../../admin/tenant-b",
];

/** The page rendered without anything of B: no name, no address, no role offer. */
const showsNothingOfB = (text: RegExp) => (value: unknown, w: World) => {
  const html = renderToStaticMarkup(value as React.ReactElement);
  expect(html).toMatch(text);
  expect(html).not.toContain(w.b.tenant.name);
  expect(html).not.toContain(`@${w.b.tenant.slug}.test`);
};

export const cases: MatrixCases = {
  async setup(w) {
    await invite(w, w.a);
    await invite(w, w.b);
    const { hash } = newLinkToken();
    await insertPasswordReset(w.db.platform, {
      userId: w.b.owner.id,
      tokenHash: hash,
      expiresAt: new Date(Date.now() + 3_600_000),
    });
    w.b.extra.resetHash = hash;
    const pending = newLinkToken();
    const pendingId = await insertPendingSignUp(w.db.platform, {
      email: `invited@${w.b.tenant.slug}.test`,
      name: "Invitee",
      passwordHash: "scrypt$not-a-real-hash",
      invitationId: w.b.extra.invitationId!,
      expiresAt: new Date(Date.now() + 86_400_000),
    });
    await setPendingSignUpToken(w.db.platform, pendingId, pending.hash);
    w.b.extra.pendingId = pendingId;
    w.b.extra.pendingHash = pending.hash;
  },
  actions: {
    [`${T}/team/actions.ts#revokeInvitationAction`]: {
      kind: "tenant",
      form: (b) => ({ invitationId: b.extra.invitationId! }),
    },
    "src/app/invite/form-actions.ts#acceptInvitationAction": {
      kind: "link",
      why: "the business comes from the stored invitation the token names",
      forms: (w) => forgedTokens(w).map((token) => ({ token, tenant: w.b.tenant.slug, role: "owner" })),
    },
    "src/app/invite/form-actions.ts#inviteSignUpAction": {
      kind: "link",
      why: "queues a confirmation mail to the invited address only for an open invitation",
      forms: (w) =>
        forgedTokens(w).map((token) => ({ token, name: "Probe", password: "probe password 123" })),
    },
    "src/app/signin/reset/form-actions.ts#resetPasswordAction": {
      kind: "link",
      why: "the account comes from the stored reset link the token names",
      forms: (w) =>
        forgedTokens(w).map((token) => ({
          token,
          newPassword: "probe password 123",
          confirmPassword: "probe password 123",
        })),
    },
    "src/app/invite/actions.ts#openInvitationAction": {
      kind: "view",
      why: "renders the invitation the token in the body names, and nothing for a forged one",
      forms: (w) => forgedTokens(w).map((token) => ({ token })),
      expect: showsNothingOfB(/This invitation link is not valid/),
    },
    "src/app/signin/reset/actions.ts#openResetLinkAction": {
      kind: "view",
      why: "renders the account of the stored reset link the token names, and nothing for a forged one",
      forms: (w) => forgedTokens(w).map((token) => ({ token })),
      expect: showsNothingOfB(/This link is not valid any more/),
    },
    "src/app/signup/confirm/form-actions.ts#confirmSignUpAction": {
      kind: "link",
      why: "the account, its business or its invitation come from the stored sign-up the token names",
      forms: (w) => forgedTokens(w).map((token) => ({ token, password: "probe password 123" })),
    },
    "src/app/signup/confirm/actions.ts#openSignUpLinkAction": {
      kind: "view",
      why: "renders the stored sign-up the token in the body names, and nothing for a forged one",
      forms: (w) => forgedTokens(w).map((token) => ({ token })),
      expect: showsNothingOfB(/This link is not valid any more/),
    },
    "src/app/signin/forgot/actions.ts#requestResetAction": {
      kind: "public",
      why: "asks for a reset link for an e-mail address; the answer is the same for every address",
    },
  },
};
