import "server-only";
import type { DbHandle } from "../db/client";
import { isAppError } from "../errors";
import { type CreatedBusiness, createBusinessWithOwner, EMAIL_TAKEN_REASON } from "./create-business";

// Self-service sign-up: a person and their own business, with them as its owner, at the first free address
// derived from the business name.

/**
 * Creates the person and their business, or nothing when the e-mail already has an account (null). The
 * caller answers both cases with the same words, so sign-up cannot tell anyone which e-mails have accounts;
 * the password is hashed in both cases so they also take as long.
 */
export async function signUp(
  handle: DbHandle,
  input: { name: string; email: string; businessName: string; password: string; timeZone?: string },
): Promise<{ user: CreatedBusiness["owner"]; tenant: CreatedBusiness["tenant"] } | null> {
  try {
    const { owner, tenant } = await createBusinessWithOwner(handle, {
      name: input.businessName,
      timeZone: input.timeZone,
      owner: { kind: "new", email: input.email, name: input.name, password: input.password },
      audit: { actor: "owner", details: () => ({ via: "sign-up" }) },
    });
    return { user: owner, tenant };
  } catch (e) {
    if (isAppError(e) && e.details?.reason === EMAIL_TAKEN_REASON) return null;
    throw e;
  }
}
