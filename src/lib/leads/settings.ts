import "server-only";
import type { TenantTx } from "../db/client";
import { getPackConfig } from "../db/queries/packs";
import { DEFAULT_CONSENT } from "../tools/packs/request-human";

// The contact form's wording comes from the request_human pack's settings, read whether or not the pack is
// switched on: the panel's "Talk to a person" entry is always there, the pack only lets the model offer it.

export type ContactSettings = { consentText: string };

export async function contactSettings(tx: TenantTx): Promise<ContactSettings> {
  const row = await getPackConfig(tx, "request_human");
  const saved = row?.config?.consentText;
  const consentText = typeof saved === "string" && saved.trim() ? saved.trim() : DEFAULT_CONSENT;
  return { consentText: consentText.slice(0, 500) };
}
