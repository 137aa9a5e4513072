import "server-only";
import type { DbHandle } from "../db";
import { type ConnectionRow, findConnectionByKey, touchConnection } from "../db/queries/channels";
import { applyStatus } from "../db/queries/channels-messages";
import { storeInbound } from "../db/queries/channels-queue";
import type { Channel, RefusalReason } from "../db/schema";
import { log } from "../log";
import { processSlot } from "../process-slot";
import { processQueue } from "../queue";
import { readCappedBytes } from "../security/body";
import { adapterFor, CHANNEL_ADAPTERS } from "./adapter";
import { queueAfterAck } from "./enqueue";
import { openChannelSecret, type SecretField } from "./identity";
import { noteAccepted, noteRefused } from "./refusals";

// The channels' webhooks. The connection's random key in the URL is the only thing that chooses the
// business; the request is verified (Meta's signature over the raw bytes, Telegram's secret header) before a
// byte of it is parsed, and a request that fails is 401 with nothing stored. A verified request is stored
// (each message once: retries insert nothing) in a transaction of its own and answered 200 at once; its job
// is queued just after the commit (enqueue.ts, with a sweep for a process that died in between), and the
// turn runs in the job (answer.ts).

const BODY_MAX_BYTES = 1024 * 1024;
const TOUCH_EVERY_MS = 10_000;
const lastTouched = processSlot<Map<string, number>>("ChannelInboundTouched");
const KEY_RE = /^[A-Za-z0-9_-]{20,80}$/;

const plain = (status: number, text: string) =>
  new Response(text, {
    status,
    headers: { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store" },
  });

async function connectionFor(db: DbHandle, channel: string, key: string) {
  if (!CHANNEL_ADAPTERS.has(channel) || !KEY_RE.test(key)) return null;
  // The urgent pool: providers time the acknowledgement, and the answering workers must not hold it up.
  return findConnectionByKey(db.urgent.platform, channel as Channel, key);
}

/** GET: WhatsApp's verification handshake (no signature is sent with it, so none is expected). */
export async function handleChannelGet(req: Request, channel: string, key: string, db: DbHandle) {
  const found = await connectionFor(db, channel, key);
  const handshake = found ? adapterFor(found.connection.channel).handshake : undefined;
  if (!found || !handshake) return plain(404, "Not found");
  const challenge = handshake(new URL(req.url).searchParams, secretOf(found.connection));
  return challenge === null ? plain(403, "Forbidden") : plain(200, challenge);
}

/** POST: one webhook delivery. */
export async function handleChannelPost(req: Request, channel: string, key: string, db: DbHandle) {
  const found = await connectionFor(db, channel, key);
  if (!found) {
    await req.body?.cancel().catch(() => {});
    return plain(404, "Not found");
  }
  const { connection: c, tenant, platformOn } = found;
  let raw: Uint8Array;
  try {
    raw = await readCappedBytes(req, BODY_MAX_BYTES);
  } catch {
    return plain(413, "Too large");
  }
  const refused = refusal(req, c, raw);
  if (refused) {
    // A wrong app secret on the Channels page shows up here first (every delivery fails the same way): the
    // connection keeps why, rate-limited and without anything of the body (refusals.ts).
    log().warn({ connectionId: c.id, channel: c.channel, reason: refused }, "channel webhook refused");
    await noteRefused(db, c, refused);
    return plain(401, "Unauthorized");
  }
  await noteAccepted(db, c);
  // Verified from here on. A switched-off connection, business or platform still answers 200, so the
  // provider does not retry for days a message that will not be answered; nothing is stored.
  if (!platformOn || !c.enabled || tenant.status !== "active") return plain(200, "OK");
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder().decode(raw));
  } catch {
    return plain(400, "Bad request");
  }
  const { inbound, statuses } = adapterFor(c.channel).parse(c, json);
  if (inbound.length === 0 && statuses.length === 0) return plain(200, "OK");
  const queue = processQueue();
  if (!queue) return plain(503, "Unavailable"); // the provider retries; better than a message never answered
  const q = await queue;
  if (statuses.length > 0) {
    await db.forTenant(c.tenantId, async (tx) => {
      for (const s of statuses) await applyStatus(tx, c.id, s);
    });
  }
  // One statement, its own transaction; the tenant comes from the connection the key chose.
  const contacts = await storeInbound(db, c.tenantId, inbound);
  // Stored: from here on nothing is lost, even if the process dies before the job is queued (the sweep).
  queueAfterAck(db, q, c.tenantId, c.id, contacts);
  // Apart from the store, and at most every ten seconds per process: every delivery of a connection would
  // touch this one row (see touchConnection). Not awaited: it is for the Channels page, and awaited it was
  // the slowest acknowledgement of every ten seconds (a transaction of four statements).
  const now = Date.now();
  const seen = lastTouched.use(() => new Map());
  if (inbound.length > 0 && now - (seen.get(c.id) ?? 0) > TOUCH_EVERY_MS) {
    seen.set(c.id, now);
    void db
      .forTenant(c.tenantId, (tx) => touchConnection(tx, c.id, "inbound"))
      .catch((err) =>
        log().warn({ err: { message: (err as Error).message }, connectionId: c.id }, "channel touch failed"),
      );
  }
  return plain(200, "OK");
}

const secretOf = (c: ConnectionRow) => (field: SecretField) =>
  openChannelSecret(c.secrets, c.tenantId, c.id, field);

/** Why the delivery is refused, or null when it passed its check. */
function refusal(req: Request, c: ConnectionRow, raw: Uint8Array): RefusalReason | null {
  try {
    return adapterFor(c.channel).verify({ headers: req.headers, raw }, secretOf(c));
  } catch (err) {
    // A secret that no longer opens (the key was rotated away): refuse, and say so where operators look.
    log().warn(
      { err: { message: (err as Error).message }, connectionId: c.id },
      "channel secret does not open",
    );
    return "secret_unreadable";
  }
}
