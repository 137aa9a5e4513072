import { customType, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { users } from "./core";

const bytea = customType<{ data: Buffer; driverData: Buffer }>({ dataType: () => "bytea" });

/**
 * A person's profile photo (drizzle/0032): apart from `users`, whose whole row the guard reads on every
 * request. Tenant work sees only the photos of the current tenant's members (a policy of its own).
 */
export const userAvatars = pgTable("user_avatars", {
  userId: uuid("user_id")
    .primaryKey()
    .references(() => users.id, { onDelete: "cascade" }),
  image: bytea("image").notNull(),
  contentType: text("content_type").$type<AvatarType>().notNull(),
  /** The first 16 hex digits of the image's SHA-256: part of every photo URL. */
  version: text("version").notNull(),
  updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
});

export type AvatarType = "image/png" | "image/jpeg" | "image/webp";
