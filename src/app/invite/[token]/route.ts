import { fragmentRedirect } from "@/lib/security/link-token";

// Links mailed before invitation links carried their token in the fragment: sent on to /invite#<token>.
// The path is one of the secret routes (src/lib/secret-paths.mjs), so no log line keeps the token.
export async function GET(_req: Request, ctx: { params: Promise<{ token: string }> }) {
  return fragmentRedirect("/invite", (await ctx.params).token);
}
