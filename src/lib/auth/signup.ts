import "server-only";
import { eq } from "drizzle-orm";
import type { Db, DbHandle } from "../db/client";
import { audit } from "../db/queries/audit";
import { createTenant, SLUG_RE } from "../db/queries/tenants";
import { addMembership, createUser, findUserByEmail } from "../db/queries/users";
import { tenants } from "../db/schema";
import { AppError } from "../errors";
import { hashPassword } from "./password";

// Self-service sign-up: a person and their own business, with them as its owner.

/** A URL-safe slug from a business name: "Café Michi!" → "cafe-michi". */
export function slugify(name: string): string {
  const base = name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 34)
    .replace(/-+$/g, "");
  return base && SLUG_RE.test(base) ? base : "business";
}

/** The first of slug, slug-2, slug-3, … that no tenant uses yet. */
export async function uniqueSlug(db: Db, wanted: string): Promise<string> {
  for (let n = 1; n < 1000; n++) {
    const candidate = n === 1 ? wanted : `${wanted}-${n}`;
    const [taken] = await db
      .select({ id: tenants.id })
      .from(tenants)
      .where(eq(tenants.slug, candidate))
      .limit(1);
    if (!taken) return candidate;
  }
  throw new AppError("conflict", "Could not find a free address for this business; try another name.");
}

function isUniqueViolation(e: unknown): boolean {
  const code =
    (e as { code?: string; cause?: { code?: string } })?.code ??
    (e as { cause?: { code?: string } })?.cause?.code;
  return code === "23505";
}

export async function signUp(
  handle: DbHandle,
  input: { name: string; email: string; businessName: string; password: string },
) {
  const db = handle.platform;
  if (await findUserByEmail(db, input.email))
    throw new AppError("conflict", "An account with this e-mail already exists. Sign in instead.", {
      fieldErrors: { email: ["An account with this e-mail already exists. Sign in instead."] },
    });
  const passwordHash = await hashPassword(input.password);
  // Another sign-up may take the same slug between the check and the insert; the unique index decides and
  // we try the next free one.
  for (let attempt = 0; attempt < 5; attempt++) {
    const slug = await uniqueSlug(db, slugify(input.businessName));
    try {
      const created = await db.transaction(async (tx) => {
        const user = await createUser(tx, { email: input.email, name: input.name, passwordHash });
        const tenant = await createTenant(tx, { slug, name: input.businessName });
        await addMembership(tx, tenant.id, user.id, "owner");
        return { user, tenant };
      });
      await handle.forTenant(created.tenant.id, (tx) =>
        audit(tx, {
          tenantId: created.tenant.id,
          actor: { id: created.user.id, email: created.user.email },
          action: "tenant.created",
          target: created.tenant.slug,
          details: { via: "sign-up" },
        }),
      );
      return created;
    } catch (e) {
      if (!isUniqueViolation(e)) throw e;
      if (await findUserByEmail(db, input.email))
        throw new AppError("conflict", "An account with this e-mail already exists. Sign in instead.", {
          fieldErrors: { email: ["An account with this e-mail already exists. Sign in instead."] },
        });
    }
  }
  throw new AppError("conflict", "Could not create the business right now; please try again.");
}
