// The embedded database's own thread: PGlite (Postgres compiled to WebAssembly) runs here and serves the
// Postgres wire protocol on a private Unix socket, so the app talks to it through `pg` like to any Postgres
// and the main thread's event loop never runs a query. Started by src/lib/db/embedded.ts; plain JavaScript so
// the same file runs under Next (dev and the standalone build, which copies it) and under tsx/vitest.
//
// PGlite is one single-user backend: one session, one transaction at a time. Several client connections share
// it, so this bridge decides whose messages run next:
//  - messages are grouped into units that end where the client waits for an answer (Sync, Query, Flush, the
//    end of a COPY); a unit runs in one call, so another connection can never slip between a Parse and its
//    Bind (they would share the unnamed statement);
//  - while a connection holds the backend (inside a transaction, or before the ReadyForQuery that ends its
//    extended-protocol sequence), only that connection's units run; the others wait in arrival order;
//  - a connection that goes away while it holds the backend is rolled back, so it cannot block the others;
//  - when the backend is free, a unit of an urgent connection (application_name michi-urgent: the webhooks'
//    acknowledgements a provider is timing, DbHandle.urgent in client.ts) runs before the others waiting. Its
//    statements are single and short, so it can delay the others by little and never starve them.
// Session state is shared: a plain SET by one connection is seen by all (the app only uses SET LOCAL /
// set_config(..., true)), and LISTEN notifications are not routed (the app does not use them).
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import v8 from "node:v8";
import { parentPort, workerData } from "node:worker_threads";
import { PGlite } from "@electric-sql/pglite";
// PGlite 0.5 ships contrib extensions as separate bundles that must be handed to the constructor before CREATE
// EXTENSION can find them: transcript search (drizzle/0005) needs both, the unanswered report (0007) pg_trgm.
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";
import { unaccent } from "@electric-sql/pglite/contrib/unaccent";
import { createStatementCache } from "./pglite-statements.mjs";

/** @type {{ dataDir: string | null; mode: "serve" | "init"; settings: string[] }} */
const { dataDir, mode, settings } = workerData;

const SSL_REQUEST = 80877103;
const GSSENC_REQUEST = 80877104;
const CANCEL_REQUEST = 80877102;
// Message types (first byte) after which the client waits for the server: the end of a unit.
const UNIT_END = new Set([
  0x53 /* Sync */, 0x51 /* Query */, 0x48 /* Flush */, 0x63 /* CopyDone */, 0x66 /* CopyFail */,
]);
const TERMINATE = 0x58;
const READY_FOR_QUERY = 0x5a;
const SYNC = Buffer.from([0x53, 0, 0, 0, 4]);
// URGENT_APPLICATION_NAME of client.ts, as it appears in a startup message.
const URGENT_PARAMETER = Buffer.from("application_name\0michi-urgent\0");

// PGlite's 9 MB of WebAssembly is compiled by V8's baseline compiler (Liftoff) at start, then V8 recompiles
// the functions that run often with its optimising compiler (TurboFan) in the background. That second copy
// of the code and the compiler's working memory cost 20-70 MB of resident memory, more the longer the server
// runs, and made the idle figure depend on what ran first (254-304 MB after the same start). With the chat's
// short statements the optimised code saved no measurable CPU per turn (npm run bench -- --only=pglite,
// bench/README.md); a long aggregation (the Usage page over months of messages) runs up to ~1.5x slower.
// The flag is process-wide, but this is the process's only large WebAssembly module, and it has to be set
// before PGlite compiles it, here in the worker.
v8.setFlagsFromString("--liftoff-only");

// One options object: `new PGlite(undefined, options)` (the in-memory database of the tests) drops `options`.
const pg = new PGlite({
  ...(dataDir ? { dataDir } : {}),
  startParams: [...PGlite.defaultStartParams, ...settings.flatMap((s) => ["-c", s])],
  extensions: { pg_trgm, unaccent },
});
await pg.waitReady;

if (mode === "init") {
  // A fresh data directory: initdb's memory (hundreds of MB) leaves with this thread; the serving thread
  // that follows opens the directory as it would any existing one.
  await pg.close();
  parentPort.postMessage({ type: "initialised" });
  process.exit(0);
}

/**
 * @typedef {{ socket: net.Socket; buf: Buffer; started: boolean; pending: Buffer[]; closed: boolean; urgent?: boolean }} Conn
 * @typedef {{ conn: Conn; bytes: Buffer; startup?: boolean; cleanup?: boolean }} Unit
 */

/** @type {Unit[]} */
let queue = [];
/** @type {Conn | null} the connection the backend belongs to until it is idle again */
let owner = null;
/** @type {Promise<void> | null} the pump while it runs */
let running = null;
/** @type {Set<Conn>} */
const conns = new Set();
const statements = createStatementCache();

/** Runs queued units until none may run now; returns when it stops. */
function pump() {
  running ??= drain().finally(() => {
    running = null;
  });
  return running;
}

async function drain() {
  // Starts on a later microtask, so `running` is set before the loop can end.
  await null;
  for (;;) {
    const i = owner ? queue.findIndex((u) => u.conn === owner) : nextUnit();
    if (i < 0) return;
    const [unit] = queue.splice(i, 1);
    if (!owner && statements.stale) await dropStatements();
    if (unit.cleanup) await release(unit.conn);
    else if (!unit.conn.closed) await run(unit);
    if (unit.conn.closed && owner === unit.conn) await release(unit.conn);
  }
}

/** With the backend free: the first urgent unit waiting, else the first of all (-1: none). */
function nextUnit() {
  const urgent = queue.findIndex((u) => u.conn.urgent);
  return urgent >= 0 ? urgent : queue.length ? 0 : -1;
}

/** @param {Unit} unit */
async function run(unit) {
  /** @type {Buffer[]} */
  const out = [];
  const plan = unit.startup ? null : statements.rewrite(unit.bytes);
  try {
    await pg.runExclusive(() =>
      // The chunks point into PGlite's memory, which the next call reuses: copy them.
      pg.execProtocolRawStream(plan?.bytes ?? unit.bytes, { onRawData: (d) => out.push(Buffer.from(d)) }),
    );
  } catch (err) {
    console.error("pglite: a statement failed inside the engine", err);
    // Whatever it left open is released when the close is seen (release() below).
    owner = unit.conn;
    unit.conn.socket.destroy();
    return;
  }
  let data = out.length === 1 ? out[0] : Buffer.concat(out);
  if (plan) data = statements.answer(plan, data);
  if (!unit.startup) owner = holdsBackend(data) ? unit.conn : null;
  if (data.length && !unit.conn.closed) unit.conn.socket.write(data);
}

/** True unless the answer ends with ReadyForQuery "idle": mid-sequence, or inside a transaction. */
function holdsBackend(data) {
  let last = -1;
  for (let pos = 0; pos + 5 <= data.length; pos += 1 + data.readInt32BE(pos + 1)) last = pos;
  return !((last >= 0 && data[last] === READY_FOR_QUERY && data[last + 5] === 0x49) /* I */);
}

/** Drops the statements the cache has forgotten (./pglite-statements.mjs); only while no one holds the backend. */
async function dropStatements() {
  try {
    await pg.runExclusive(() => pg.execProtocolRaw(statements.dropAll));
  } catch (err) {
    console.error("pglite: could not drop prepared statements", err);
  }
  statements.dropped();
}

/** Ends whatever a vanished connection left open: its extended-protocol sequence, then its transaction. */
async function release(conn) {
  if (owner !== conn) return;
  owner = null;
  try {
    await pg.runExclusive(() => pg.execProtocolRaw(SYNC));
    if (pg.isInTransaction()) await pg.exec("ROLLBACK");
  } catch (err) {
    console.error("pglite: could not roll back a closed connection", err);
  }
}

/** @param {Conn} conn */
function onData(conn, chunk) {
  conn.buf = conn.buf.length ? Buffer.concat([conn.buf, chunk]) : chunk;
  let queued = false;
  while (!conn.closed) {
    const b = conn.buf;
    if (!conn.started) {
      if (b.length < 8) break;
      const len = b.readInt32BE(0);
      if (len < 8) {
        conn.socket.destroy(); // not a Postgres client
        break;
      }
      if (b.length < len) break;
      const code = b.readInt32BE(4);
      conn.buf = b.subarray(len);
      if (code === SSL_REQUEST || code === GSSENC_REQUEST) conn.socket.write("N");
      else if (code === CANCEL_REQUEST)
        conn.socket.end(); // nothing runs long enough to cancel here
      else {
        conn.started = true;
        const startup = Buffer.from(b.subarray(0, len));
        // The startup message's parameters are NUL-separated names and values.
        conn.urgent = startup.includes(URGENT_PARAMETER);
        queue.push({ conn, bytes: startup, startup: true });
        queued = true;
      }
      continue;
    }
    if (b.length < 5) break;
    const len = 1 + b.readInt32BE(1);
    if (b.length < len) break;
    const type = b[0];
    conn.buf = b.subarray(len);
    if (type === TERMINATE) {
      conn.socket.end();
      break;
    }
    conn.pending.push(b.subarray(0, len));
    if (UNIT_END.has(type)) {
      queue.push({ conn, bytes: Buffer.concat(conn.pending) });
      conn.pending = [];
      queued = true;
    }
  }
  if (queued) pump();
}

/** @param {Conn} conn */
function onClose(conn) {
  if (conn.closed) return;
  conn.closed = true;
  conns.delete(conn);
  queue = queue.filter((u) => u.conn !== conn);
  if (owner === conn) {
    queue.unshift({ conn, bytes: SYNC, cleanup: true });
    pump();
  }
}

// A directory only this process's user can enter (mkdtemp creates it 0700): the socket needs no password.
// Not inside the data directory: that is often a volume (Docker, network storage) where Unix sockets fail,
// and a socket path must stay under ~100 bytes.
const socketDir = mkdtempSync(path.join(tmpdir(), "michi-pglite-"));
const PORT = 5432;
const server = net.createServer((socket) => {
  /** @type {Conn} */
  const conn = { socket, buf: Buffer.alloc(0), started: false, pending: [], closed: false };
  conns.add(conn);
  socket.setNoDelay(true);
  socket.on("data", (chunk) => onData(conn, chunk));
  socket.on("error", () => onClose(conn));
  socket.on("close", () => onClose(conn));
});
await new Promise((resolve, reject) => {
  server.once("error", reject);
  server.listen(path.join(socketDir, `.s.PGSQL.${PORT}`), resolve);
});

parentPort.on("message", async (m) => {
  if (m?.type !== "close") return;
  server.close();
  for (const c of [...conns]) {
    c.socket.destroy();
    onClose(c);
  }
  await pump();
  // Closing PGlite checkpoints and flushes the data directory.
  await pg.close();
  if (existsSync(socketDir)) rmSync(socketDir, { recursive: true, force: true });
  parentPort.postMessage({ type: "closed" });
});

parentPort.postMessage({ type: "ready", host: socketDir, port: PORT });
