// The per-request context set up by the production server (scripts/serve.mjs) with AsyncLocalStorage.
// Guards record the tenant they resolved so the access-log line carries it. Absent under `next dev`.
import "server-only";
import { processSlot } from "./process-slot";

type RequestContext = {
  requestId: string;
  tenantId?: string;
  stream: boolean;
  /** A server action of ours began to run (src/lib/auth/action.ts). */
  actionRan?: boolean;
  /** A server action was called with arguments no page of ours sends. */
  malformedAction?: boolean;
};

type Store = { getStore(): RequestContext | undefined };

// Set by scripts/serve.mjs as globalThis.__michiRequestContext.
const store = processSlot<Store>("RequestContext");

export function requestContext(): RequestContext | undefined {
  return store.get()?.getStore();
}

export function noteTenant(tenantId: string): void {
  const ctx = requestContext();
  if (ctx) ctx.tenantId = tenantId;
}

/**
 * Marks the request as a server action that reached our code; with `malformed`, as one whose arguments no
 * page of ours sends. Next answers every failed action 500; the production server turns that into 400 when
 * the arguments were malformed or Next could not decode them before any action ran (scripts/serve.mjs).
 */
export function noteAction(malformed = false): void {
  const ctx = requestContext();
  if (!ctx) return;
  ctx.actionRan = true;
  if (malformed) ctx.malformedAction = true;
}
