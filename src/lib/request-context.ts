// The per-request context set up by the production server (scripts/serve.mjs) with AsyncLocalStorage.
// Guards record the tenant they resolved so the access-log line carries it. Absent under `next dev`.
import "server-only";
import { processSlot } from "./process-slot";

type RequestContext = { requestId: string; tenantId?: string; stream: boolean };

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
