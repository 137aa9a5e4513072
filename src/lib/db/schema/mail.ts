import { sql } from "drizzle-orm";
import { check, index, pgTable, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { type Role, tenants, users } from "./core";

const created = () => timestamp("created_at", { withTimezone: true }).notNull().defaultNow();

/** What became of a mail: handed to the SMTP server, kept for the operator (no SMTP), dropped (mail off), failed. */
export type MailStatus = "sent" | "kept" | "off" | "failed";

/**
 * Every mail the platform tried to send. The body is stored only when the mail is kept for the operator (no
 * SMTP, MICHI_MAIL_OUTBOX on); a sent mail keeps its envelope only, since its links are secrets. A mail about a
 * tenant carries its id (and goes with it); a mail about a person only (password reset) has none.
 */
export const mailOutbox = pgTable(
  "mail_outbox",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    tenantId: uuid("tenant_id").references(() => tenants.id, { onDelete: "cascade" }),
    kind: text("kind").notNull(),
    toAddress: text("to_address").notNull(),
    subject: text("subject").notNull(),
    bodyText: text("body_text"),
    bodyHtml: text("body_html"),
    status: text("status").$type<MailStatus>().notNull(),
    error: text("error").notNull().default(""),
    createdAt: created(),
  },
  (t) => [index("mail_outbox_created_idx").on(t.createdAt.desc())],
);

/** An invitation to join a tenant: the link's token is stored only as its SHA-256. */
export const invitations = pgTable(
  "invitations",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    tenantId: uuid("tenant_id")
      .notNull()
      .references(() => tenants.id, { onDelete: "cascade" }),
    email: text("email").notNull(),
    role: text("role").$type<Role>().notNull(),
    tokenHash: text("token_hash").notNull(),
    invitedBy: uuid("invited_by").references(() => users.id, { onDelete: "set null" }),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    acceptedAt: timestamp("accepted_at", { withTimezone: true }),
    acceptedBy: uuid("accepted_by").references(() => users.id, { onDelete: "set null" }),
    revokedAt: timestamp("revoked_at", { withTimezone: true }),
    createdAt: created(),
  },
  (t) => [
    uniqueIndex("invitations_token_hash_key").on(t.tokenHash),
    index("invitations_tenant_created_idx").on(t.tenantId, t.createdAt.desc()),
  ],
);

/** A password reset link: single use, expiring, stored only as its token's SHA-256. Platform data. */
export const passwordResets = pgTable(
  "password_resets",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    tokenHash: text("token_hash").notNull(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    usedAt: timestamp("used_at", { withTimezone: true }),
    createdAt: created(),
  },
  (t) => [
    uniqueIndex("password_resets_token_hash_key").on(t.tokenHash),
    index("password_resets_user_idx").on(t.userId),
  ],
);

/**
 * A sign-up waiting for its address to be confirmed: nothing else exists until the mailed link is opened.
 * Either a new business (its name and time zone) or an invitation to accept. The token is set by the mail job
 * for an address without an account, and stored only as its SHA-256. Platform data.
 */
export const pendingSignUps = pgTable(
  "pending_sign_ups",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    email: text("email").notNull(),
    name: text("name").notNull(),
    passwordHash: text("password_hash").notNull(),
    businessName: text("business_name"),
    timeZone: text("time_zone"),
    invitationId: uuid("invitation_id").references(() => invitations.id, { onDelete: "cascade" }),
    tokenHash: text("token_hash"),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    usedAt: timestamp("used_at", { withTimezone: true }),
    createdAt: created(),
  },
  (t) => [
    uniqueIndex("pending_sign_ups_token_hash_key").on(t.tokenHash),
    index("pending_sign_ups_expires_idx").on(t.expiresAt),
    check(
      "pending_sign_ups_business_or_invitation",
      sql`(${t.businessName} IS NULL) <> (${t.invitationId} IS NULL)`,
    ),
  ],
);
