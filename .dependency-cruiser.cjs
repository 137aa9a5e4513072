// The layer order of docs/architecture.md, checked by `npm run lint` (scripts/lint-boundaries.mjs).
// A module may import its own layer or any layer below it, never one above:
//   app (src/app, src/components) → use cases (src/lib/<domain>, src/widget/server)
//   → chat/tools → auth/security/mail → db → base (env, errors, log, process slots, request context,
//   src/shared)
// Only src/lib/db speaks SQL: drizzle, pg and PGlite are imported nowhere else under src/.
const BASE =
  "^src/lib/(env|env-providers|errors|log|process-slot|request-context)[.]ts$|^src/lib/secret-paths[.]mjs$|^src/shared/";
const DB = "^src/lib/db/";
const AUTH_SECURITY = "^src/lib/(auth|security|mail)/";
const CHAT_TOOLS = "^src/lib/(chat|tools)/";
const APP = "^src/(app|components)/|^src/[^/]+[.]tsx?$";
const ANY_SRC = "^src/";
// Use cases: every folder of src/lib but the lower layers, the root use-case modules, and the widget's server.
const USE_CASES =
  "^src/lib/(?!(auth|security|mail|db|chat|tools)/)[^/]+/|^src/lib/(boot|jobs|retention)[.]ts$|^src/widget/server/";

const below = (...layers) => ({ path: ANY_SRC, pathNot: layers });
const upward = (name, from, allowed) => ({
  name: `upward-from-${name}`,
  comment: `${name} may import only the layers below it (docs/architecture.md, "Layers").`,
  severity: "error",
  from: { path: from },
  to: below(...allowed),
});

module.exports = {
  forbidden: [
    upward("base", BASE, [BASE]),
    upward("db", DB, [BASE, DB]),
    upward("auth-security", AUTH_SECURITY, [BASE, DB, AUTH_SECURITY]),
    upward("chat-tools", CHAT_TOOLS, [BASE, DB, AUTH_SECURITY, CHAT_TOOLS]),
    {
      name: "upward-from-use-cases",
      comment: "Use cases (src/lib/<domain>, src/widget/server) never import routes or components.",
      severity: "error",
      from: { path: "^src/(lib|widget/server)/" },
      to: { path: APP },
    },
    {
      name: "lib-imports-widget-client",
      comment:
        "The widget's panel, loader and words are the browser's side, above the server's use cases: words both " +
        "sides use live in src/shared (e.g. src/shared/handoff-words.ts), never reached up for from src/lib.",
      severity: "error",
      from: { path: "^src/lib/" },
      to: { path: "^src/widget/(?!server/)" },
    },
    {
      name: "src-imports-scripts",
      comment:
        "Scripts run the app's code, never the reverse: a module both need lives under src/ and the script " +
        "imports it (e.g. src/lib/secret-paths.mjs).",
      severity: "error",
      from: { path: ANY_SRC },
      to: { path: "^scripts/" },
    },
    {
      name: "use-case-imports-form-state",
      comment:
        "Use cases take typed input and throw AppError, so a route, a script, a test and a server action can " +
        "call them; the server-action wrappers and their form state (src/lib/auth/action.ts, re-exported by " +
        "src/lib/auth/guard.ts) belong to the app's edge. Import the context from src/lib/auth/access.ts.",
      severity: "error",
      from: { path: USE_CASES },
      to: { path: "^src/lib/auth/(action|guard)[.]ts$" },
    },
    {
      name: "component-reads-db",
      comment: "Components render; they get data through a page or a use case, never from src/lib/db.",
      severity: "error",
      from: { path: "^src/components/|^src/app/.*[.]tsx$", pathNot: "/(page|layout)[.]tsx$" },
      to: { path: DB },
    },
    {
      name: "widget-client-imports-server",
      comment: "The widget panel and loader are bundled for browsers; they may not pull server code in.",
      severity: "error",
      from: { path: "^src/widget/", pathNot: "^src/widget/server/" },
      to: { path: "^src/(lib|app|components|widget/server)/", dependencyTypesNot: ["type-only"] },
    },
    {
      name: "sql-outside-db",
      comment: "SQL lives in src/lib/db: drizzle, pg and PGlite are imported nowhere else under src/.",
      severity: "error",
      from: { path: ANY_SRC, pathNot: DB },
      to: { path: "(^|/)node_modules/(drizzle-orm|pg|@electric-sql/pglite)/" },
    },
    {
      name: "live-imports-channels",
      comment:
        "Arrows run channels → live → outbox: live/ queues a reply to a channel through src/lib/outbox, never " +
        "src/lib/channels, which imports live/ (the one two-way pair among the use-case folders, issue 43).",
      severity: "error",
      from: { path: "^src/lib/live/" },
      to: { path: "^src/lib/channels/" },
    },
    {
      name: "outbox-imports-use-cases",
      comment:
        "The outbox is channel-blind and below live/ and channels/: it stores replies through src/lib/db only.",
      severity: "error",
      from: { path: "^src/lib/outbox/" },
      to: { path: "^src/lib/(live|channels)/" },
    },
    {
      name: "no-circular",
      comment:
        "Two modules that import each other cannot be read, tested or loaded one at a time; shared types go in a module of their own (e.g. src/lib/chat/model-types.ts).",
      severity: "error",
      from: { path: ANY_SRC },
      to: { circular: true },
    },
    {
      name: "pack-check-loads-db",
      comment: "npm run check:packs runs packs through the pure run wrapper: it must not load the database.",
      severity: "error",
      from: { path: "^scripts/check-packs[.]ts$" },
      to: {
        path: "^src/lib/db/|(^|/)node_modules/(drizzle-orm|pg|@electric-sql/pglite)/",
        reachable: true,
      },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    tsConfig: { fileName: "tsconfig.json" },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default"],
    },
  },
};
