import { KB_ROUTES } from "./e2e-knowledge-site";
import { type FixtureRoute, hang } from "./fixture-site";

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
  // A function route: a plain value would be sent as JSON itself; a string body is sent as it is.
  [FAILING_PATHS.badJson]: () => ({ body: '{"open": true, "nextChange": "18:' }),
};
