import "server-only";
import type { DbHandle } from "@/lib/db";
import type { TenantRow } from "@/lib/db/queries/tenants";
import { processSlot } from "@/lib/process-slot";

// Tenants the chat endpoint read a moment ago, by widget key, so that a turn need not read its tenant again
// before it opens (one round trip fewer on every visitor message; bench/README.md).
//
// A remembered row is only ever trusted to let a turn through, and only until the statement that opens the
// turn has confirmed it: that statement (michi_open_turn_as_seen) compares the row's version (xmin, which every
// UPDATE replaces, whoever makes it and on whichever instance) and refuses before it takes or writes anything
// when the tenant changed. The handler then forgets the row, reads it afresh and guards again. A remembered
// row that would refuse (origin, status, visitor) is read afresh before refusing, so a change that allows
// more is seen at once. The age cap bounds the one use made before the check can run: the rate points a
// request with a bad body still costs are counted against settings at most this old.

const MAX_ENTRIES = 5000;
const MAX_AGE_MS = 60_000;

export type KnownTenant = { tenant: TenantRow; seen: string };
type Entry = KnownTenant & { at: number };

// Per database handle (tests run several in one process) and per process, on globalThis like the other
// per-process caches, since Next may load this module in more than one bundle.
const known = processSlot<WeakMap<DbHandle, Map<string, Entry>>>("KnownTenants");

function entries(db: DbHandle): Map<string, Entry> {
  const byDb = known.use(() => new WeakMap());
  let m = byDb.get(db);
  if (!m) {
    m = new Map();
    byDb.set(db, m);
  }
  return m;
}

export function recallTenant(db: DbHandle, key: string, now = Date.now()): KnownTenant | null {
  const m = entries(db);
  const hit = m.get(key);
  if (!hit) return null;
  if (now - hit.at > MAX_AGE_MS) {
    m.delete(key);
    return null;
  }
  return hit;
}

export function rememberTenant(db: DbHandle, key: string, known: KnownTenant, now = Date.now()): void {
  const m = entries(db);
  m.delete(key);
  m.set(key, { ...known, at: now });
  // Oldest first: a Map iterates in insertion order.
  if (m.size > MAX_ENTRIES) m.delete(m.keys().next().value as string);
}

export function forgetTenant(db: DbHandle, key: string): void {
  entries(db).delete(key);
}
