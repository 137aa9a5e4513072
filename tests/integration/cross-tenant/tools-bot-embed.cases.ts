import { fieldName } from "@/lib/tools/form-data";
import type { MatrixCases } from "./harness";

// Tools, Bot and Site & embed. Forms are valid submissions aimed at tenant B, so only the guard can stop them.

const T = "src/app/(admin)/admin/[tenant]";

export const cases: MatrixCases = {
  actions: {
    [`${T}/tools/actions.ts#savePackAction`]: {
      kind: "tenant",
      form: () => ({
        packId: "get_business_info",
        enabled: "on",
        [fieldName("address")]: "Forged address",
        [fieldName("phone")]: "+1 555 0199",
      }),
    },
    [`${T}/tools/actions.ts#testPackAction`]: {
      kind: "tenant",
      form: () => ({ packId: "get_business_info", "arg.topic": "phone" }),
    },
    // The list's switch: B's pack must stay as it is (tenant B's snapshot covers pack_configs).
    [`${T}/tools/actions.ts#togglePackAction`]: {
      kind: "tenant",
      form: () => ({ packId: "get_business_info", enabled: "true" }),
    },
    [`${T}/bot/actions.ts#saveBotAction`]: {
      kind: "tenant",
      form: () => ({
        displayName: "Forged bot",
        greeting: "Forged",
        instructions: "",
        language: "en",
        position: "right",
      }),
    },
    [`${T}/embed/actions.ts#saveDomainsAction`]: {
      kind: "tenant",
      form: () => ({ siteDomains: "evil.example" }),
    },
    // Verified visitors: B's identity secret and switch must stay as they are (B's tenants row is snapshotted).
    [`${T}/embed/actions.ts#rotateIdentitySecretAction`]: { kind: "tenant", form: () => ({}) },
    [`${T}/embed/actions.ts#removeIdentitySecretAction`]: { kind: "tenant", form: () => ({}) },
    [`${T}/embed/actions.ts#setIdentityRequiredAction`]: {
      kind: "tenant",
      form: () => ({ required: "false" }),
    },
  },
  pages: {
    // A pack's page: B's slug is a 404 for A's owner, whatever the pack.
    [`${T}/tools/[packId]/page.tsx`]: {
      params: (w) => [
        { tenant: w.b.tenant.slug, packId: "get_business_info" },
        { tenant: w.b.tenant.slug, packId: "fetch_json" },
      ],
    },
  },
};
