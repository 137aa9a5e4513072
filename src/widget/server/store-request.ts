// The first steps the widget's two storing endpoints share (a lead, a rating): the database, the tenant of the
// key, the CORS headers for the request's origin, and a JSON body within its cap.
import "server-only";
import { AppError } from "@/lib/errors";
import { readCappedText } from "@/lib/security/body";
import { corsHeaders } from "./cors";
import type { WidgetStoreDeps } from "./deps";
import { allowedOrigin, dbStep, tenantForKey } from "./guard";

const BODY_MAX_BYTES = 16 * 1024;

export async function readJson(req: Request): Promise<Record<string, unknown>> {
  const raw = await readCappedText(req, BODY_MAX_BYTES);
  try {
    const v: unknown = JSON.parse(raw);
    if (v && typeof v === "object" && !Array.isArray(v)) return v as Record<string, unknown>;
  } catch {
    // answered below
  }
  throw new AppError("invalid_input", "The request is not valid JSON.", {
    fieldErrors: { body: ["The request is not valid JSON."] },
  });
}

export async function guarded(req: Request, key: string, deps: WidgetStoreDeps) {
  const e = deps.env();
  const db = await dbStep(() => deps.db());
  const tenant = await tenantForKey(db, key);
  const cors = corsHeaders(allowedOrigin(req, tenant, e.MICHI_PUBLIC_URL));
  return { e, db, tenant, cors };
}
