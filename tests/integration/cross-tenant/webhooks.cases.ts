import { randomUUID } from "node:crypto";
import { insertDelivery, insertEndpoint } from "@/lib/db/queries/webhooks";
import { sealSigningSecret } from "@/lib/webhooks/signing";
import type { MatrixCases, Side, World } from "./harness";

// Webhooks: both tenants get an endpoint and a delivery, so "A's slug with B's ids" names real rows of B.
// Forms are valid submissions (the URL is an allowlisted-looking public name that does not resolve, so a
// create or edit under A's own slug stops at the URL check without touching B either way).

const T = "src/app/(admin)/admin/[tenant]/webhooks";

async function seed(w: World, s: Side) {
  const id = randomUUID();
  const tenantId = s.tenant.id;
  await w.db.forTenant(tenantId, async (tx) => {
    await insertEndpoint(tx, {
      id,
      tenantId,
      url: `https://hooks.${s.tenant.slug}.example/in`,
      description: "",
      events: ["lead.created"],
      secret: sealSigningSecret(`whsec_${Buffer.alloc(32, 1).toString("base64")}`, tenantId, id),
    });
    const deliveryId = await insertDelivery(tx, {
      tenantId,
      endpointId: id,
      messageId: `msg_${s.tenant.slug}`,
      eventType: "lead.created",
      dedupeKey: `msg_${s.tenant.slug}`,
      payload: { type: "lead.created", timestamp: new Date().toISOString(), data: {} },
    });
    s.extra.webhookEndpointId = id;
    s.extra.webhookDeliveryId = deliveryId!;
  });
}

const endpointForm = (s: Side) => ({
  endpointId: s.extra.webhookEndpointId!,
  url: "https://forged.invalid/hook",
  description: "forged",
  events: ["lead.created", "feedback.created"],
});

export const cases: MatrixCases = {
  async setup(w) {
    await seed(w, w.a);
    await seed(w, w.b);
  },
  actions: {
    [`${T}/actions.ts#createEndpointAction`]: {
      kind: "tenant",
      form: () => ({ url: "https://forged.invalid/hook", description: "", events: "lead.created" }),
    },
    [`${T}/actions.ts#updateEndpointAction`]: { kind: "tenant", form: endpointForm },
    [`${T}/actions.ts#setEndpointEnabledAction`]: {
      kind: "tenant",
      form: (s) => ({ endpointId: s.extra.webhookEndpointId!, enabled: "false" }),
    },
    // Sends a signed test event: another business's endpoint must never receive one through this tenant.
    [`${T}/actions.ts#sendTestEventAction`]: {
      kind: "tenant",
      form: (s) => ({ endpointId: s.extra.webhookEndpointId! }),
    },
    [`${T}/actions.ts#rollSecretAction`]: {
      kind: "tenant",
      form: (s) => ({ endpointId: s.extra.webhookEndpointId! }),
    },
    [`${T}/actions.ts#deleteEndpointAction`]: {
      kind: "tenant",
      form: (s) => ({ endpointId: s.extra.webhookEndpointId! }),
    },
    [`${T}/actions.ts#redeliverAction`]: {
      kind: "tenant",
      form: (s) => ({ deliveryId: s.extra.webhookDeliveryId! }),
    },
  },
  pages: {
    [`${T}/[id]/page.tsx`]: {
      params: (w) => [
        { tenant: w.b.tenant.slug, id: w.b.extra.webhookEndpointId! },
        { tenant: w.a.tenant.slug, id: w.b.extra.webhookEndpointId! },
      ],
    },
  },
};
