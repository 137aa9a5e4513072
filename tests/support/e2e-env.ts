// Facts of the e2e world shared by the harness (tests/support/e2e-server.ts) and the specs. Every server of the
// world listens on a port chosen at start (port 0, or below the ephemeral range for the app, which must know
// its own URL), so the addresses are only known once the world runs: the global setup
// (tests/support/e2e-global-setup.ts) puts them in MICHI_E2E_WORLD, which Playwright's workers inherit.

export type E2EWorld = {
  appUrl: string;
  /** The fake model's base URL without /v1. */
  modelUrl: string;
  /** https://localhost:PORT, the café's own site for its opening-hours pack. */
  fixtureOrigin: string;
  /** A customer's page that the seeded tenants allow (tests/support/host-page.ts). */
  hostPageOrigin: string;
  /** A second host page origin that no tenant allows. */
  strangerOrigin: string;
  /** What the world's SMTP server and webhook receiver got: GET /mails, GET /hooks (tests/support/e2e-handoff.ts). */
  inboxUrl: string;
  /** The signing secret of the café's webhook endpoint. */
  hookSecret: string;
  /** The fake WhatsApp and Telegram APIs the app calls (tests/support/e2e-channels.ts). */
  channels: {
    /** GET /graph and GET /telegram: what the fakes were sent. */
    viewUrl: string;
    /** The only phone number id and access token the fake Graph API accepts. */
    phoneNumberId: string;
    accessToken: string;
    /** The only bot token the fake Bot API accepts. */
    telegramToken: string;
  };
};

export const WORLD_ENV = "MICHI_E2E_WORLD";

export function world(): E2EWorld {
  const raw = process.env[WORLD_ENV];
  if (!raw) throw new Error(`${WORLD_ENV} is not set: run the specs with \`npm run test:e2e\``);
  return JSON.parse(raw) as E2EWorld;
}

export const E2E = {
  get appUrl() {
    return world().appUrl;
  },
  get modelUrl() {
    return world().modelUrl;
  },
  get fixtureOrigin() {
    return world().fixtureOrigin;
  },
  get hostPageOrigin() {
    return world().hostPageOrigin;
  },
  get strangerOrigin() {
    return world().strangerOrigin;
  },
  get inboxUrl() {
    return world().inboxUrl;
  },
  get hookSecret() {
    return world().hookSecret;
  },
  get channels() {
    return world().channels;
  },
  operator: { email: "admin@example.com", password: "e2e-operator-password-1" },
  viewer: { email: "viewer@example.com", password: "e2e-viewer-password-1" },
  otherOwner: { email: "owner@other.example", password: "e2e-other-password-1" },
  /** The tenant the widget specs embed: get_opening_status on the fixture site, host page origin allowed. */
  cafe: { slug: "e2e-cafe", widgetKey: "wk_e2e_cafe_key_0001" },
  other: { slug: "other-shop", widgetKey: "wk_e2e_other_key_001" },
  /** A tenant only the settings specs change, so their edits never reach what the widget specs expect. */
  lab: { slug: "e2e-lab", widgetKey: "wk_e2e_lab_key_000001" },
  /** A tenant only the pack world error spec configures, so its failing pack reaches no other spec. */
  packs: { slug: "e2e-packs", widgetKey: "wk_e2e_packs_key_0001" },
  /** A tenant only the visitor-side spec changes (greetings, starters, suspension), with the café's pack. */
  visitor: { slug: "e2e-visitor", widgetKey: "wk_e2e_visitor_key_01" },
  /** A tenant with post_json on the fixture site, for the confirmation spec (tests/e2e/confirm-actions.spec.ts). */
  actions: { slug: "e2e-actions", widgetKey: "wk_e2e_actions_key_01" },
  /** post_json's signing secret there, as the owner would have copied it (Standard Webhooks whsec_ form). */
  actionSecret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
  /** A tenant with a visitor identity secret, for the verified-visitor spec (tests/e2e/verified-visitors.spec.ts). */
  verified: { slug: "e2e-verified", widgetKey: "wk_e2e_verified_key_1" },
  /** Its identity secret, as the owner would have copied it into their site's server. */
  identitySecret: "e2e-identity-secret-0123456789abcdef-0123456789",
  models: ["fake-small", "fake-large"],
} as const;
