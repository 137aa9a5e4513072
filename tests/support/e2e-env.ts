// Fixed facts of the e2e world, shared by the harness (tests/support/e2e-server.ts) and the specs.
export const E2E = {
  appPort: 39100,
  modelPort: 39101,
  fixturePort: 39102,
  hostPagePort: 39103,
  /** A second host page origin that no tenant allows. */
  strangerPort: 39104,
  get appUrl() {
    return `http://localhost:${this.appPort}`;
  },
  get modelUrl() {
    return `http://127.0.0.1:${this.modelPort}`;
  },
  get fixtureOrigin() {
    return `https://localhost:${this.fixturePort}`;
  },
  get hostPageOrigin() {
    return `http://localhost:${this.hostPagePort}`;
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
  models: ["fake-small", "fake-large"],
} as const;
