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
      form: () => ({ packId: "get_business_info", args: "{}" }),
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
  },
};
