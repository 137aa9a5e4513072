import "server-only";
import { queuePendingSignUp } from "../accounts/pending-sign-up";
import type { DbHandle } from "../db/client";
import { AppError, isAppError } from "../errors";
import { type CreatedBusiness, createBusinessWithOwner, EMAIL_TAKEN_REASON } from "./create-business";

// Self-service sign-up: a person and their own business, with them as its owner, at the first free address
// derived from the business name. Two steps, so that the answer never tells whether an address has an
// account and nobody makes an account for an address they cannot read: the form only records the request
// and the mail goes out (src/lib/accounts/pending-sign-up.ts); the mailed link creates everything.

/** The form's step: the same work and the same answer for every address; nothing is created yet. */
export async function requestSignUp(
  handle: DbHandle,
  input: { name: string; email: string; businessName: string; password: string; timeZone?: string },
): Promise<void> {
  await queuePendingSignUp(handle, input);
}

export const HAS_ACCOUNT =
  "This address has a michi-chat account already. Sign in, or choose a new password with “Forgot password?”.";

/** The link's step: the account and the business, with the values stored when the form was sent. */
export async function openBusinessFromSignUp(
  handle: DbHandle,
  pending: {
    email: string;
    name: string;
    passwordHash: string;
    businessName: string;
    timeZone: string | null;
  },
): Promise<{ user: NonNullable<CreatedBusiness["owner"]>; tenant: CreatedBusiness["tenant"] }> {
  try {
    const { owner, tenant } = await createBusinessWithOwner(handle, {
      name: pending.businessName,
      timeZone: pending.timeZone ?? undefined,
      owner: { kind: "new", email: pending.email, name: pending.name, passwordHash: pending.passwordHash },
      audit: { actor: "owner", details: () => ({ via: "sign-up" }) },
    });
    if (!owner) throw new Error("a signed-up business has its owner");
    return { user: owner, tenant };
  } catch (e) {
    if (isAppError(e) && e.details?.reason === EMAIL_TAKEN_REASON)
      throw new AppError("conflict", HAS_ACCOUNT);
    throw e;
  }
}
