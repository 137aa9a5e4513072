// The production entry point (copied into .next/standalone as michi-server.mjs by scripts/build.mjs, run by
// `npm start`, the e2e tests and the Docker image). It wraps Next's request handler to add what Next's own
// standalone server lacks:
//  - the socket's peer address in `x-michi-peer`, overwritten on every request, because Next keeps a
//    client-sent X-Forwarded-For and so cannot be trusted for rate limits without proxies in front;
//  - a request id and one structured access-log line per request (tenant id when a guard resolved one), and
//    every line this process writes passed through the secret-route redaction (secret-paths.mjs, copied
//    beside this file), so no reset or invitation token reaches a log;
//  - request targets that are not a plain path of this server refused with 400 (badRequestTarget): Next
//    redirected an absolute-form line to its foreign host and failed with 500 on a malformed escape;
//  - a server action called with malformed arguments answered 400 where Next says 500 (src/lib/auth/action.ts
//    marks them in the request context);
//  - graceful shutdown: on SIGTERM stop accepting, let running chat streams finish up to a deadline, then close
//    the database pool;
//  - start-up before the first request: configuration errors stop the process instead of the first visitor;
//  - a visitor's token and chat requests handed to their route handlers without Next's request pipeline
//    (direct-routes.mjs, copied beside this file): they are most of the traffic, and Next's pipeline cost as
//    much CPU per chat turn as the platform's own work.
import { AsyncLocalStorage } from "node:async_hooks";
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import http from "node:http";
import { createRequire } from "node:module";
import path from "node:path";
import { badRequestTarget, loadDirectRoutes, refuseRequestTarget, serveDirect } from "./direct-routes.mjs";
import { redactSecretPaths } from "./secret-paths.mjs";

const dir = import.meta.dirname;
process.env.NODE_ENV = "production";
// Next's server loads .env files from its own folder unless the environment is marked as processed. Ours comes
// from whoever started us (`npm start` reads the project root's files at each start, Docker passes it), so
// no copy in the build output, however stale, can bring back a variable removed from the root's .env.local.
process.env.__NEXT_PROCESSED_ENV = "true";
process.chdir(dir);
const require = createRequire(path.join(dir, "package.json"));

const { config } = JSON.parse(readFileSync(path.join(dir, ".next/required-server-files.json"), "utf8"));
process.env.__NEXT_PRIVATE_STANDALONE_CONFIG = JSON.stringify(config);

const port = Number.parseInt(process.env.PORT ?? "", 10) || 3000;
const hostname = process.env.HOSTNAME || "0.0.0.0";
const graceMs = Number.parseInt(process.env.MICHI_SHUTDOWN_GRACE_MS ?? "", 10) || 10_000;
const pino = require("pino");
// The settings of src/lib/log.ts (LOG_DESTINATION): asynchronous writes, so the access line of every request
// never blocks the event loop, gathered up to 4 KB or half a second so each line does not cost a write of its
// own. pino writes what is still gathered when the process exits; lifecycle lines are flushed at once.
const log = pino(
  {
    level: process.env.MICHI_LOG_LEVEL || "info",
    base: { app: "michi-chat" },
    timestamp: pino.stdTimeFunctions.isoTime,
    hooks: { streamWrite: redactSecretPaths },
  },
  pino.destination({ dest: 1, sync: false, minLength: 4096, periodicFlush: 500 }),
);

// Next prints through console (an error with the URL it failed on, a warning naming a path): whatever this
// process writes to stdout or stderr outside pino passes the same secret-route redaction as the log lines.
for (const stream of [process.stdout, process.stderr]) {
  const write = stream.write.bind(stream);
  stream.write = (chunk, ...rest) =>
    write(typeof chunk === "string" ? redactSecretPaths(chunk) : redactBuffer(chunk), ...rest);
}
function redactBuffer(chunk) {
  if (!(chunk instanceof Uint8Array)) return chunk;
  const text = Buffer.from(chunk).toString("utf8");
  const clean = redactSecretPaths(text);
  return clean === text ? chunk : clean;
}

// Shared with route code through globalThis: guards record the tenant they resolved (src/lib/request-context.ts).
const requestContext = new AsyncLocalStorage();
globalThis.__michiRequestContext = requestContext;

const next = require("next");
// Not `customServer: false`: that selects Next's bare internal server, which skips the router layer that
// serves public/ (widget.js and the panel bundles answered 404).
const app = next({ dev: false, dir, conf: config, hostname, port });
const handle = app.getRequestHandler();
await app.prepare();
// prepare() runs the instrumentation hook, which starts src/lib/boot.ts; accept traffic once it is done.
await globalThis.__michiBoot;
// After prepare(): Next's require hooks are in place, and the route modules are the very ones Next loads.
const direct = loadDirectRoutes(dir, require);

let active = 0;
let streams = 0;
let draining = false;

const server = http.createServer((req, res) => {
  if (draining) res.setHeader("Connection", "close");
  const id =
    typeof req.headers["x-request-id"] === "string" && /^[\w.-]{1,64}$/.test(req.headers["x-request-id"])
      ? req.headers["x-request-id"]
      : randomUUID();
  req.headers["x-request-id"] = id;
  req.headers["x-michi-peer"] = req.socket.remoteAddress ?? "";
  res.setHeader("X-Request-Id", id);
  const started = performance.now();
  const ctx = { requestId: id, tenantId: undefined, stream: false };
  active++;
  res.on("close", () => {
    active--;
    if (ctx.stream) streams--;
    const url = req.url ?? "/";
    log.info(
      {
        reqId: id,
        tenantId: ctx.tenantId,
        method: req.method,
        // An absolute-form target keeps only its path: the host part is the client's, not ours.
        route: redactSecretPaths(url.startsWith("/") ? url.split("?")[0] : "(refused request target)"),
        status: res.statusCode,
        durationMs: Math.round(performance.now() - started),
        aborted: !res.writableFinished || undefined,
      },
      "request",
    );
  });
  const origWriteHead = res.writeHead;
  const isAction = typeof req.headers["next-action"] === "string";
  res.writeHead = function writeHead(...args) {
    // Next answers any failed server action 500. One called with arguments no page sends (our action marked
    // it), or one Next could not decode so that no action of ours ever ran, is the caller's mistake: 400.
    const status = typeof args[0] === "number" ? args[0] : res.statusCode;
    if (isAction && status === 500 && (ctx.malformedAction || !ctx.actionRan)) {
      if (typeof args[0] === "number") args[0] = 400;
      res.statusCode = 400;
    }
    const type = String(
      res.getHeader("content-type") ?? args.find((a) => a && typeof a === "object")?.["content-type"] ?? "",
    );
    if (type.startsWith("text/event-stream") && !ctx.stream) {
      ctx.stream = true;
      streams++;
    }
    return origWriteHead.apply(this, args);
  };
  const refused = badRequestTarget(req.url);
  if (refused) {
    refuseRequestTarget(res, refused);
    return;
  }
  requestContext.run(ctx, () => {
    const route = direct.match(req);
    (route ? serveDirect(req, res, route) : handle(req, res)).catch((err) => {
      log.error({ reqId: id, err: { message: err?.message, stack: err?.stack } }, "unhandled request error");
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
});
server.keepAliveTimeout = 65_000;
server.listen(port, hostname, () => {
  // A parent that started us with an IPC channel (the test harness) learns that the port is ours; polling
  // the URL could not tell our answer from another server's on the same port.
  process.send?.({ type: "listening", port });
  log.info(
    { port, hostname },
    `michi-chat listening on http://${hostname === "0.0.0.0" ? "localhost" : hostname}:${port}`,
  );
  log.flush();
});

async function shutdown(signal) {
  if (draining) return;
  draining = true;
  log.info({ signal, active, streams }, "shutting down: no new connections; waiting for running chats");
  log.flush();
  server.close();
  // Held live streams (src/lib/live/stream.ts) end now: their clients resume on another instance by seq.
  globalThis.__michiLiveDrain?.();
  server.closeIdleConnections?.();
  const deadline = Date.now() + graceMs;
  while (active > 0 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
    server.closeIdleConnections?.();
  }
  if (active > 0) log.warn({ active }, "grace period over; closing the remaining connections");
  server.closeAllConnections?.();
  try {
    // The job queue first: a running webhook delivery finishes (or goes back to the queue) while the
    // database is still there (src/lib/queue).
    await globalThis.__michiQueueStop?.();
    const db = await globalThis.__michiDb;
    await db?.close();
  } catch (err) {
    log.error({ err: { message: err?.message } }, "error while closing");
  }
  log.info("bye");
  process.exit(0);
}
process.on("SIGTERM", () => void shutdown("SIGTERM"));
process.on("SIGINT", () => void shutdown("SIGINT"));
