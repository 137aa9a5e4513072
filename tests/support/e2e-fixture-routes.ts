import { KB_ROUTES } from "./e2e-knowledge-site";
import { type FixtureRequest, type FixtureRoute, hang } from "./fixture-site";

// The tenant's https site in the e2e world: the café's opening hours, and the failing endpoints the pack world
// error spec (tests/e2e/pack-world-errors.spec.ts) points fetch_json at, and the knowledge journey's small
// website (tests/support/e2e-knowledge-site.ts).

/** Paths on the fixture site that fail the way real sites do. */
export const FAILING_PATHS = {
  /** Not a route: the site answers 404. */
  missing: "/api/gone.json",
  /** Accepts the request and never answers, so the pack hits its timeout. */
  slow: "/api/slow.json",
  /** 200 with a body that is not JSON (a truncated file). */
  badJson: "/api/broken.json",
} as const;

/** The café's order endpoint that post_json sends to (tests/e2e/confirm-actions.spec.ts). */
export const ORDER_PATH = "/api/cake-orders";
/** What the order endpoint received, read by the spec at ORDERS_SEEN (the fixture runs in another process). */
export const ORDERS_SEEN = "/__orders-seen";
const orders: { headers: FixtureRequest["headers"]; body: string }[] = [];

export const E2E_FIXTURE_ROUTES: Record<string, FixtureRoute> = {
  ...KB_ROUTES,
  "/api/hours/": {
    open: true,
    nextChange: "18:00",
    timezone: "Europe/Madrid",
    weekly: Array.from({ length: 7 }, (_, d) => ({ day: d, opens: "08:00", closes: "18:00" })),
    internalNotes: "not for the model",
  },
  [FAILING_PATHS.slow]: hang(),
  [ORDER_PATH]: (r) => {
    if (r.method === "POST") orders.push({ headers: r.headers, body: r.body });
    return { body: { reference: `C-${1040 + orders.length}`, internal: "not for the model" } };
  },
  [ORDERS_SEEN]: () => ({ body: orders }),
  // A function route: a plain value would be sent as JSON itself; a string body is sent as it is.
  [FAILING_PATHS.badJson]: () => ({ body: '{"open": true, "nextChange": "18:' }),
};
