// The per-request context set up by the production server (scripts/serve.mjs) with AsyncLocalStorage.
// Guards record the tenant they resolved so the access-log line carries it. Absent under `next dev`.
import "server-only";

type RequestContext = { requestId: string; tenantId?: string; stream: boolean };

type Store = { getStore(): RequestContext | undefined };

export function requestContext(): RequestContext | undefined {
  return (globalThis as unknown as { __michiRequestContext?: Store }).__michiRequestContext?.getStore();
}

export function noteTenant(tenantId: string): void {
  const ctx = requestContext();
  if (ctx) ctx.tenantId = tenantId;
}
