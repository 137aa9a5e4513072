import "server-only";
import { assertRole, type TenantContext } from "../auth/access";
import { getEndpoint, listDeliveries } from "../db/queries/webhooks";

// What an endpoint's page shows: the endpoint and its latest deliveries, read in one tenant transaction.
// Admins and owners only, as everything about webhooks. Null when the business has no such endpoint.

export async function loadEndpoint(ctx: TenantContext, endpointId: string) {
  assertRole(ctx, "admin");
  return ctx.db.forTenant(ctx.tenant.id, async (tx) => {
    const endpoint = await getEndpoint(tx, endpointId);
    return endpoint ? { endpoint, deliveries: await listDeliveries(tx, endpointId) } : null;
  });
}

export type EndpointView = NonNullable<Awaited<ReturnType<typeof loadEndpoint>>>;
