import "server-only";
import type { DbHandle } from "../db";
import { type ConnectionRow, clearRefusals, recordRefusal } from "../db/queries/channels";
import type { RefusalReason } from "../db/schema";
import { log } from "../log";
import { processSlot } from "../process-slot";
import { adapterFor } from "./adapter";
import type { ChannelAdapter } from "./adapter-types";

// Refused webhook deliveries, kept on the connection so the Channels page and Check connection can say why
// every delivery fails (a wrong or rotated app secret looks like silence otherwise). Anyone can post to a
// webhook URL they learnt, so what a refusal costs is bounded: each process counts refusals in memory and
// writes at most once a minute per connection (recordRefusal's condition holds that across processes too),
// and the write carries only the time, a fixed reason and the count, never a byte of the refused request.
// The count therefore lags by up to a minute of refusals, and a count a skipped write carried is dropped.

const WRITE_EVERY_MS = 60_000;
type Pending = { count: number; wroteAt: number };
const pendingSlot = processSlot<Map<string, Pending>>("ChannelRefusals");

/** Counts one refused delivery, and writes the count when this connection's minute has passed. */
export async function noteRefused(db: DbHandle, c: ConnectionRow, reason: RefusalReason): Promise<void> {
  const pending = pendingSlot.use(() => new Map());
  const now = Date.now();
  const p = pending.get(c.id) ?? { count: 0, wroteAt: 0 };
  p.count += 1;
  pending.set(c.id, p);
  if (now - p.wroteAt < WRITE_EVERY_MS) return;
  const count = p.count;
  p.wroteAt = now;
  p.count = 0;
  // The provider (or a forger) gets its 401 whatever happens to this bookkeeping.
  await db
    .forTenant(c.tenantId, (tx) => recordRefusal(tx, c.id, reason, count, new Date(now)))
    .catch((err: Error) => log().warn({ err: { message: err.message } }, "a refusal was not recorded"));
}

/** A delivery passed its check: clears the recorded refusals (no write when there are none). */
export async function noteAccepted(db: DbHandle, c: ConnectionRow): Promise<void> {
  if (!c.lastRefusedAt) return;
  pendingSlot.get()?.delete(c.id);
  await db
    .forTenant(c.tenantId, (tx) => clearRefusals(tx, c.id))
    .catch((err: Error) => log().warn({ err: { message: err.message } }, "refusals were not cleared"));
}

type Them = { they: string; their: string };
const WHY: Record<RefusalReason, (adapter: ChannelAdapter, p: Them) => string> = {
  bad_signature: (_, p) =>
    `${p.their} signature does not match the app secret you saved. Copy the App secret from your Meta app (developers.facebook.com → your app → App settings → Basic), paste it here and save.`,
  missing_signature: (_, p) =>
    `${p.they} carried no signature (X-Hub-Signature-256). Meta signs every delivery, so ${p.they} did not come from Meta, or something in front of this server removes the header.`,
  wrong_secret_token: (_, p) =>
    `${p.they} did not carry the secret_token this connection registered with Telegram. If the same bot was connected somewhere else since, press Connect Telegram again here.`,
  missing_secret_token: (_, p) =>
    `${p.they} carried no secret_token (X-Telegram-Bot-Api-Secret-Token). Telegram sends it on every delivery to this address, so ${p.they} did not come from Telegram, or something in front of this server removes the header.`,
  secret_unreadable: ({ words }) =>
    `the ${words.secret} stored here can no longer be opened (the platform's secret key changed). ${words.storeAgain}`,
};

/** The refusals in words, or null when the last delivery passed (or none was ever refused). */
export function refusalWords(
  c: Pick<ConnectionRow, "channel" | "lastRefusedAt" | "lastRefusedReason" | "refusedCount">,
): string | null {
  if (!c.lastRefusedAt || !c.lastRefusedReason) return null;
  const adapter = adapterFor(c.channel);
  const who = adapter.provider;
  const n = Math.max(1, c.refusedCount);
  const what = n === 1 ? `${who}'s last delivery was refused` : `${who}'s last ${n} deliveries were refused`;
  const them = n === 1 ? { they: "it", their: "its" } : { they: "they", their: "their" };
  const why = WHY[c.lastRefusedReason]?.(adapter, them) ?? `${them.they} did not pass the check.`;
  return `${what}: ${why}`;
}
