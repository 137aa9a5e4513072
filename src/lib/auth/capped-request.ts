import "server-only";
import { NextRequest } from "next/server";
import { readCappedText } from "../security/body";

// next-auth's route handler reads the body itself, and would read any size. It gets a copy read under the cap.
// Kept apart from security/body.ts so that the widget's handlers, which the production server calls without
// Next (scripts/direct-routes.mjs), import nothing of Next.

/**
 * A copy of `req` whose body was read under the cap, for handlers that read it themselves. It is a
 * NextRequest because next-auth's route handler reads `req.nextUrl`.
 */
export async function withCappedBody(req: Request, maxBytes: number): Promise<NextRequest> {
  const method = req.method.toUpperCase();
  if (method === "GET" || method === "HEAD")
    return "nextUrl" in req ? (req as NextRequest) : new NextRequest(req);
  const body = await readCappedText(req, maxBytes);
  return new NextRequest(req.url, { method: req.method, headers: req.headers, body, signal: req.signal });
}
