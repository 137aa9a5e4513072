import "server-only";
import { isTimeZone } from "@/shared/dates";
import { SLUG_RE, slugify } from "@/shared/slug";
import { findOrCreateUser } from "../accounts/users";
import type { Db, DbHandle } from "../db/client";
import { type AuditActor, forTenantAudited } from "../db/queries/audit";
import { insertInvitation } from "../db/queries/invitations";
import { createTenant, isSlugTaken, type TenantRow } from "../db/queries/tenants";
import { addMembership, createUser, findUserByEmail, type UserRow } from "../db/queries/users";
import type { BotSettings } from "../db/schema";
import { AppError } from "../errors";

// Creating a business with its owner: one use case for the operator's form, self-service sign-up and the
// first-start seed. User, business and membership commit together; the audit entry follows in the new
// business's own scope.

export type BusinessOwner =
  /**
   * A confirmed sign-up: a new account with the password the person chose (hashed when they chose it); an
   * e-mail already in use creates nothing.
   */
  | { kind: "new"; email: string; name: string; passwordHash: string }
  /** Operator: the account of this e-mail, created with a one-time password when missing. */
  | { kind: "by-email"; email: string }
  /** Seed: an account that already exists. */
  | { kind: "existing"; user: UserRow }
  /**
   * Operator with mail on: the account of this e-mail when there is one; otherwise no account yet, and an
   * owner invitation with this token hash (the caller mails its link; accepting creates the account).
   */
  | { kind: "invite"; email: string; tokenHash: string; expiresAt: Date; invitedBy: string };

export type NewBusiness = {
  name: string;
  /** The address to use; when absent, the first free one derived from the name. */
  slug?: string;
  bot?: BotSettings;
  /** IANA zone for the admin's dates (sign-up sends the browser's); UTC when absent or unknown. */
  timeZone?: string;
  owner: BusinessOwner;
  /** Who is recorded in the business's audit log; null skips the entry (the seed writes none). */
  audit: {
    actor: AuditActor | "owner";
    /** `owner` is null when the owner was invited instead. */
    details: (owner: UserRow | null, newAccount: boolean) => Record<string, unknown>;
  } | null;
};

export type CreatedBusiness = {
  tenant: TenantRow;
  /** Null when the owner was invited (no account yet). */
  owner: UserRow | null;
  oneTimePassword: string | null;
};

const EMAIL_TAKEN = "An account with this e-mail already exists. Sign in instead.";
const SLUG_TAKEN = {
  message: "That address is taken.",
  field: "Another business already uses this address.",
};

/** The first of slug, slug-2, slug-3, … that no tenant uses yet. */
async function freeSlug(db: Db, wanted: string): Promise<string> {
  for (let n = 1; n < 1000; n++) {
    const candidate = n === 1 ? wanted : `${wanted}-${n}`;
    if (!(await isSlugTaken(db, candidate))) return candidate;
  }
  throw new AppError("conflict", "Could not find a free address for this business; try another name.");
}

function isUniqueViolation(e: unknown): boolean {
  const code =
    (e as { code?: string; cause?: { code?: string } })?.code ??
    (e as { cause?: { code?: string } })?.cause?.code;
  return code === "23505";
}

const slugTaken = () =>
  new AppError("conflict", SLUG_TAKEN.message, { fieldErrors: { slug: [SLUG_TAKEN.field] } });
/** The "new" owner's e-mail already has an account; sign-up turns this into its one neutral answer. */
export const EMAIL_TAKEN_REASON = "email_taken";
const emailTaken = () =>
  new AppError("conflict", EMAIL_TAKEN, {
    fieldErrors: { email: [EMAIL_TAKEN] },
    reason: EMAIL_TAKEN_REASON,
  });

/**
 * Validates, then creates the owner's account (when asked), the business and the owner membership in one
 * transaction. `within` is a platform transaction the caller already holds (the seed's locked one).
 */
export async function createBusinessWithOwner(
  handle: DbHandle,
  input: NewBusiness,
  within?: Db,
): Promise<CreatedBusiness> {
  const db = within ?? handle.platform;
  // The invitation is written with the audit entry.
  if (input.owner.kind === "invite" && !input.audit) throw new Error("an invited owner needs an audit entry");
  if (input.slug !== undefined && !SLUG_RE.test(input.slug))
    throw new AppError("invalid_input", "Use lower-case letters, digits and dashes.", {
      fieldErrors: { slug: ["Use lower-case letters, digits and dashes (2–40 characters)."] },
    });
  if (input.slug !== undefined && (await isSlugTaken(db, input.slug))) throw slugTaken();

  const { owner } = input;
  let oneTimePassword: string | null = null;
  let known: UserRow | null = owner.kind === "existing" ? owner.user : null;
  if (owner.kind === "by-email") ({ user: known, oneTimePassword } = await findOrCreateUser(db, owner.email));
  if (owner.kind === "invite") known = await findUserByEmail(db, owner.email);
  const invite = owner.kind === "invite" && !known ? owner : null;
  const newAccount =
    owner.kind === "new" ? { email: owner.email, name: owner.name, passwordHash: owner.passwordHash } : null;
  if (owner.kind === "new" && (await findUserByEmail(db, owner.email))) throw emailTaken();

  // A concurrent creation may take the same slug between the check and the insert; the unique index decides.
  // A chosen slug then fails as taken; a derived one moves on to the next free address.
  let created: { tenant: TenantRow; owner: UserRow | null } | undefined;
  for (let attempt = 0; attempt < 5 && !created; attempt++) {
    const slug = input.slug ?? (await freeSlug(db, slugify(input.name)));
    try {
      created = await db.transaction(async (t) => {
        // A transaction offers the same query API; drizzle's generics just do not say so.
        const tx = t as unknown as Db;
        const user = known ?? (newAccount ? await createUser(tx, newAccount) : null);
        const tenant = await createTenant(tx, {
          slug,
          name: input.name,
          bot: input.bot,
          timeZone: isTimeZone(input.timeZone) ? input.timeZone : undefined,
        });
        if (user) await addMembership(tx, tenant.id, user.id, "owner");
        return { tenant, owner: user };
      });
    } catch (e) {
      if (!isUniqueViolation(e)) throw e;
      if (owner.kind === "new" && (await findUserByEmail(db, owner.email))) throw emailTaken();
      if (input.slug !== undefined) throw slugTaken();
    }
  }
  if (!created) throw new AppError("conflict", "Could not create the business right now; please try again.");

  const { tenant, owner: ownerRow } = created;
  const entry = input.audit;
  if (entry) {
    const actor = entry.actor === "owner" ? ownerRow : entry.actor;
    if (!actor) throw new Error("a business created by its owner has an owner");
    await forTenantAudited(handle, tenant.id, actor, async (tx, record) => {
      await record("tenant.created", {
        target: tenant.slug,
        details: entry.details(ownerRow, oneTimePassword !== null),
      });
      if (!invite) return;
      const { email, tokenHash, expiresAt, invitedBy } = invite;
      await insertInvitation(tx, {
        tenantId: tenant.id,
        email,
        role: "owner",
        tokenHash,
        invitedBy,
        expiresAt,
      });
      await record("invitation.created", {
        target: email,
        details: { role: "owner", expiresAt: expiresAt.toISOString() },
      });
    });
  }
  return { tenant, owner: ownerRow, oneTimePassword };
}
