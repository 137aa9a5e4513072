import "server-only";
import { createHash } from "node:crypto";
import { isUuid } from "@/shared/parse";
import type { TenantContext } from "../auth/access";
import type { DbHandle } from "../db/client";
import { type AvatarFile, deleteAvatar, memberAvatar, putAvatar } from "../db/queries/avatars";
import { AppError } from "../errors";
import { checkPhoto, PHOTO_PROBLEM_TEXT } from "./photo-format";

// A person's own profile photo: the visitor sees it beside their name when they join a live conversation,
// their team in the console. Like the name, it is the caller's own user row (platform work), whichever
// business's admin they reached their account page through; any role may set it.

type Caller = Pick<TenantContext, "db" | "user">;

/** Checks and stores the caller's photo (replacing any earlier one); returns its version. */
export async function setProfilePhoto(ctx: Caller, file: Uint8Array): Promise<{ version: string }> {
  const checked = await checkPhoto(file);
  if (typeof checked === "string") {
    const message = PHOTO_PROBLEM_TEXT[checked];
    throw new AppError("invalid_input", message, { fieldErrors: { photo: [message] } });
  }
  const version = createHash("sha256").update(checked.bytes).digest("hex").slice(0, 16);
  await putAvatar(ctx.db.platform, ctx.user.id, { image: checked.bytes, contentType: checked.type, version });
  return { version };
}

/** Removes the caller's photo; everyone sees their initial again. */
export async function removeProfilePhoto(ctx: Caller): Promise<void> {
  await deleteAvatar(ctx.db.platform, ctx.user.id);
}

/**
 * A member's photo of this version, read as the tenant: row-level security shows only the photos of the
 * tenant's own members, so a user id of another business's person finds nothing. An older version (the
 * person changed or removed the photo since) finds nothing too.
 */
export async function readMemberPhoto(
  db: DbHandle,
  tenantId: string,
  ref: { userId: string; version: string },
): Promise<AvatarFile | null> {
  if (!isUuid(ref.userId) || !/^[0-9a-f]{16}$/.test(ref.version)) return null;
  return db.forTenant(tenantId, (tx) => memberAvatar(tx, ref.userId, ref.version));
}

/**
 * The photo as an HTTP answer. The type is one of the three the upload allowed, and nosniff keeps a browser
 * from reading it as anything else. The URL names the version, so the photo may be cached; only briefly,
 * because a removed photo should disappear from browsers that showed it. Never shared caches: a visitor's
 * or a member's credentials fetched it.
 */
export function photoResponse(file: AvatarFile, headers: Record<string, string> = {}): Response {
  return new Response(new Uint8Array(file.image), {
    headers: {
      ...headers,
      "Content-Type": file.contentType,
      "Content-Length": String(file.image.length),
      "X-Content-Type-Options": "nosniff",
      "Cache-Control": "private, max-age=3600",
      ETag: `"${file.version}"`,
      "Content-Security-Policy": "default-src 'none'; sandbox",
      "Cross-Origin-Resource-Policy": "same-origin",
    },
  });
}
