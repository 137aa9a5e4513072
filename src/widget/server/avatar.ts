// GET /api/widget/[key]/avatars/[token]: the photo of a person who joined the visitor's conversation. The
// token is opaque (src/lib/security/avatar-token.ts): it names the person without their user id and was made
// for this tenant and this visitor only, so it is served to nobody else, and only while that person is still
// a member of the business with that very photo. Same key, origin and token rules as the history.
import "server-only";
import { photoResponse, readMemberPhoto } from "@/lib/accounts/photo";
import { AppError, errorResponse } from "@/lib/errors";
import { openAvatarRef } from "@/lib/security/avatar-token";
import { corsHeaders } from "./cors";
import type { WidgetStoreDeps } from "./deps";
import { assertActive, dbStep, requireVisitor, tenantForKey } from "./guard";
import { checkOrigin } from "./history";

export async function handleAgentAvatar(req: Request, key: string, token: string, deps: WidgetStoreDeps) {
  let cors = corsHeaders(null);
  try {
    const e = deps.env();
    const db = await dbStep(() => deps.db());
    const tenant = await tenantForKey(db, key);
    cors = corsHeaders(checkOrigin(req, tenant, e.MICHI_PUBLIC_URL));
    assertActive(tenant);
    const visitor = await requireVisitor(req, tenant, e.MICHI_AUTH_SECRET);
    const notFound = new AppError("not_found", "This photo is not available.");
    const ref = openAvatarRef(e.MICHI_AUTH_SECRET, token, {
      tenantId: tenant.id,
      visitorId: visitor.visitorId,
    });
    if (!ref) throw notFound;
    const file = await dbStep(() => readMemberPhoto(db, tenant.id, ref));
    if (!file) throw notFound;
    return photoResponse(file, cors);
  } catch (err) {
    return errorResponse(err, { ...cors, "Cache-Control": "no-store" });
  }
}
