import { randomUUID } from "node:crypto";
import { sealChannelSecret } from "@/lib/channels/identity";
import { upsertConnection } from "@/lib/db/queries/channels";
import type { MatrixCases, Side, World } from "./harness";

// Channels: both tenants have WhatsApp connected, so a forged action aimed at B has a real connection to hit.
// The channel is chosen by name and always read under the caller's own tenant, so there are no B ids to pass;
// A's own slug changes only A. (The webhook route is keyed by the connection's random key, not a tenant, and
// has its own cross-tenant test: tests/integration/channels-cross-tenant.test.ts.)

const T = "src/app/(admin)/admin/[tenant]/channels";

async function seed(w: World, s: Side) {
  const id = randomUUID();
  const tenantId = s.tenant.id;
  await w.db.forTenant(tenantId, (tx) =>
    upsertConnection(tx, {
      id,
      tenantId,
      channel: "whatsapp",
      key: `key-${s.tenant.slug}-${randomUUID()}`,
      settings: { phoneNumberId: "106540352299001" },
      secrets: {
        accessToken: sealChannelSecret("token", tenantId, id, "accessToken"),
        appSecret: sealChannelSecret("app-secret", tenantId, id, "appSecret"),
        verifyToken: sealChannelSecret("verify", tenantId, id, "verifyToken"),
      },
    }),
  );
}

export const cases: MatrixCases = {
  async setup(w) {
    await seed(w, w.a);
    await seed(w, w.b);
  },
  actions: {
    [`${T}/actions.ts#connectWhatsAppAction`]: {
      kind: "tenant",
      form: () => ({
        phoneNumberId: "999999999999",
        accessToken: "forged",
        appSecret: "forged",
        verifyToken: "forged",
      }),
    },
    // The test platform's address is http, so Telegram is never called: refused before any request.
    [`${T}/actions.ts#connectTelegramAction`]: {
      kind: "tenant",
      form: () => ({ botToken: "123456:ABCDEFGHIJKLMNOPQRSTUVWXYZ" }),
    },
    [`${T}/actions.ts#disconnectChannelAction`]: { kind: "tenant", form: () => ({ channel: "whatsapp" }) },
    [`${T}/actions.ts#checkChannelAction`]: { kind: "tenant", form: () => ({ channel: "telegram" }) },
    "src/app/(admin)/admin/operator/channels-actions.ts#setChannelsSwitchAction": {
      kind: "operator",
      form: () => ({ enabled: "false" }),
    },
  },
};
