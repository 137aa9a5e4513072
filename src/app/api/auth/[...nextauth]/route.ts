import NextAuth from "next-auth";
import { authOptions } from "@/lib/auth/options";

// next-auth's endpoints: OAuth redirects and callbacks, the credentials callback, csrf, session, sign-out.
async function handler(req: Request, context: { params: Promise<{ nextauth: string[] }> }) {
  return NextAuth(authOptions())(req, context);
}

export { handler as GET, handler as POST };
