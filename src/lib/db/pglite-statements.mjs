// Named statements for the embedded database's bridge (src/lib/db/pglite-worker.mjs). `pg` sends every query
// with parameters as an unnamed statement (Parse, Bind, Describe, Execute, Sync), so Postgres parses, analyses
// and plans the same SQL again on every call. On Postgres that is cheap; in PGlite it is WebAssembly on the
// one thread every connection waits for, and it is a large share of a short statement's time. The app sends a
// small, fixed set of SQL texts, so the bridge prepares each once under its own name and afterwards sends only
// the Bind, answering the client's Parse itself (ParseComplete). The client cannot tell the difference.
//
// Safe because prepared statements outlive transactions (a rollback does not drop them), Postgres re-plans a
// named statement by itself when a table, policy or role it depends on changes, and the names are the
// bridge's own (`pg` names a statement only when asked to, which the app never does). What Postgres cannot
// re-plan is a statement whose result columns changed: after any DDL, or a client's DEALLOCATE or DISCARD,
// the bridge forgets its statements and drops them once the backend is idle.

const PARSE = 0x50;
const BIND = 0x42;
const QUERY = 0x51;
const SYNC = 0x53;
const ERROR = 0x45;
const DESCRIBE = 0x44;
const PORTAL = 0x50;
// What `pg` sends for a query with parameters. A unit with anything else (a Describe of the statement, a
// Close) refers to the statement by the name the client gave it, so it passes unchanged.
const PLAIN = new Set([PARSE, BIND, DESCRIBE, 0x45 /* Execute */, SYNC]);
export const PARSE_COMPLETE = Buffer.from([0x31, 0, 0, 0, 4]);
/** Enough for every query shape of the app; beyond it (e.g. IN lists of many lengths) the cache starts over. */
const MAX_STATEMENTS = 500;
// Statements that can change a prepared statement's result columns or drop it. A false match (a column named
// `drop`, a string literal) only makes the bridge start over, which is harmless.
const INVALIDATES = /\b(alter|create|drop|truncate|discard|deallocate|comment|grant|revoke)\b/i;

const cstringEnd = (buf, pos) => buf.indexOf(0, pos);

function message(type, ...parts) {
  const len = 4 + parts.reduce((n, p) => n + p.length, 0);
  const head = Buffer.alloc(5);
  head[0] = type;
  head.writeInt32BE(len, 1);
  return Buffer.concat([head, ...parts], len + 1);
}

/** The messages of a unit: [type, start, end) each. */
function split(bytes) {
  const out = [];
  for (let pos = 0; pos + 5 <= bytes.length; ) {
    const end = pos + 1 + bytes.readInt32BE(pos + 1);
    out.push({ type: bytes[pos], start: pos, end });
    pos = end;
  }
  return out;
}

/** The SQLSTATE of the first ErrorResponse in an answer, if any. */
function firstErrorCode(data) {
  for (let pos = 0; pos + 5 <= data.length; pos += 1 + data.readInt32BE(pos + 1)) {
    if (data[pos] !== ERROR) continue;
    const end = pos + 1 + data.readInt32BE(pos + 1);
    for (let f = pos + 5; f < end && data[f] !== 0; f = cstringEnd(data, f + 1) + 1) {
      if (data[f] === 0x43 /* C: SQLSTATE */) return data.toString("latin1", f + 1, cstringEnd(data, f + 1));
    }
    return "";
  }
  return null;
}

export function createStatementCache() {
  /** @type {Map<string, string>} Parse body after the name (SQL text and parameter types) -> statement name */
  const names = new Map();
  let seq = 0;
  /** Statements are prepared under names the bridge has forgotten: drop them before preparing new ones. */
  let stale = false;

  function forget() {
    if (names.size) stale = true;
    names.clear();
  }

  return {
    /** True when the forgotten statements should be dropped now (call only while the backend is idle). */
    get stale() {
      return stale;
    },
    /** The simple query that drops them; call `dropped()` once it ran. */
    dropAll: message(QUERY, Buffer.from("DEALLOCATE ALL\0")),
    dropped() {
      stale = false;
    },
    /**
     * The unit to run instead of `bytes`, and what `answer()` needs to restore the client's view. Only the
     * shape `pg` uses is rewritten: one unnamed Parse, then a Bind of it, ..., Sync. Anything else passes.
     */
    rewrite(bytes) {
      const msgs = split(bytes);
      for (const m of msgs) {
        if (m.type === QUERY && INVALIDATES.test(bytes.toString("latin1", m.start + 5, m.end))) forget();
      }
      const parses = msgs.filter((m) => m.type === PARSE);
      const [parse, bind] = [parses[0], msgs[msgs.indexOf(parses[0]) + 1]];
      if (
        parses.length !== 1 ||
        msgs.at(-1)?.type !== SYNC ||
        !msgs.every((m) => PLAIN.has(m.type) && (m.type !== DESCRIBE || bytes[m.start + 5] === PORTAL)) ||
        bytes[parse.start + 5] !== 0 || // a named statement: the client manages it
        bind?.type !== BIND
      ) {
        return { bytes, hit: false, add: null };
      }
      const portalEnd = cstringEnd(bytes, bind.start + 5);
      if (bytes[portalEnd + 1] !== 0) return { bytes, hit: false, add: null };
      const body = bytes.subarray(parse.start + 6, parse.end);
      const key = body.toString("latin1");
      const known = names.get(key);
      if (!known && (stale || names.size >= MAX_STATEMENTS || INVALIDATES.test(key))) {
        if (names.size >= MAX_STATEMENTS || INVALIDATES.test(key)) forget();
        return { bytes, hit: false, add: null };
      }
      const name = known ?? `michi_${++seq}`;
      const nameZ = Buffer.from(`${name}\0`);
      const newBind = message(
        BIND,
        bytes.subarray(bind.start + 5, portalEnd + 1),
        nameZ,
        bytes.subarray(portalEnd + 2, bind.end),
      );
      const parts = [bytes.subarray(0, parse.start)];
      if (!known) parts.push(message(PARSE, nameZ, body));
      parts.push(newBind, bytes.subarray(bind.end));
      return { bytes: Buffer.concat(parts), hit: Boolean(known), add: known ? null : { key, name } };
    },
    /** The answer as the client expects it for the unit it sent. */
    answer(plan, data) {
      if (plan.add && data[0] === PARSE_COMPLETE[0]) names.set(plan.add.key, plan.add.name);
      if (!plan.hit) return data;
      const code = firstErrorCode(data);
      // 26000: the statement is gone; 0A000: "cached plan must not change result type". Start over.
      if (code === "26000" || code === "0A000") forget();
      return Buffer.concat([PARSE_COMPLETE, data]);
    },
  };
}
