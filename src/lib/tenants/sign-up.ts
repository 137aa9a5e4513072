import "server-only";
import type { DbHandle } from "../db/client";
import { createBusinessWithOwner } from "./create-business";

// Self-service sign-up: a person and their own business, with them as its owner, at the first free address
// derived from the business name.

export async function signUp(
  handle: DbHandle,
  input: { name: string; email: string; businessName: string; password: string },
) {
  const { owner, tenant } = await createBusinessWithOwner(handle, {
    name: input.businessName,
    owner: { kind: "new", email: input.email, name: input.name, password: input.password },
    audit: { actor: "owner", details: () => ({ via: "sign-up" }) },
  });
  return { user: owner, tenant };
}
