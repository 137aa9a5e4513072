import NextAuth from "next-auth";
import { withCappedBody } from "@/lib/auth/capped-request";
import { authOptions } from "@/lib/auth/options";
import { errorResponse } from "@/lib/errors";

// next-auth's endpoints: OAuth redirects and callbacks, the credentials callback, csrf, session, sign-out.
// Their POST bodies are a few form fields; next-auth would read any size, so the body is capped first.
const AUTH_BODY_MAX_BYTES = 16 * 1024;

async function handler(req: Request, context: { params: Promise<{ nextauth: string[] }> }) {
  let capped: Request;
  try {
    capped = await withCappedBody(req, AUTH_BODY_MAX_BYTES);
  } catch (err) {
    return errorResponse(err, { "Cache-Control": "no-store" });
  }
  return NextAuth(authOptions())(capped, context);
}

export { handler as GET, handler as POST };
