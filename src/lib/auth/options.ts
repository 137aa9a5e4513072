import "server-only";
import type { NextAuthOptions, User } from "next-auth";
import CredentialsProvider from "next-auth/providers/credentials";
import GithubProvider from "next-auth/providers/github";
import { z } from "zod";
import { getDb } from "../db";
import { env } from "../env";
import { log } from "../log";
import { clientIp } from "../security/client-ip";
import { matchOrCreateOAuthUser, PASSWORD_MAX, verifiedGithubEmail } from "./accounts";
import { authenticate } from "./credentials";
import { SESSION_MAX_AGE_SEC, secureCookies, tokenClaims } from "./session-cookie";
import { throttleMessage } from "./throttle";

// next-auth configuration: JWT sessions carrying our user id and session version. Built on demand because
// env() must not be read while Next builds.

export function githubEnabled(): boolean {
  const e = env();
  return Boolean(e.GITHUB_ID && e.GITHUB_SECRET);
}

/** What our sign-in callback attaches to the provider's user so the jwt callback can mint our claims. */
type MichiUser = User & { michi?: { id: string; email: string; name: string; sessionVersion: number } };

const credentialsInput = z.object({
  email: z.string().trim().min(1).max(320),
  password: z.string().min(1).max(PASSWORD_MAX),
});

function headersOf(raw: Record<string, unknown> | undefined): Headers {
  const h = new Headers();
  for (const [k, v] of Object.entries(raw ?? {})) {
    if (typeof v === "string") h.set(k, v);
    else if (Array.isArray(v)) h.set(k, v.join(", "));
  }
  return h;
}

export function authOptions(): NextAuthOptions {
  const e = env();
  const providers: NextAuthOptions["providers"] = [
    CredentialsProvider({
      id: "credentials",
      name: "E-mail",
      credentials: {
        email: { label: "E-mail", type: "email" },
        password: { label: "Password", type: "password" },
      },
      async authorize(credentials, req) {
        const parsed = credentialsInput.safeParse(credentials);
        if (!parsed.success) return null;
        const ip = clientIp(headersOf(req?.headers), e.MICHI_TRUST_PROXY);
        const db = await getDb();
        const outcome = await authenticate(db.platform, { ...parsed.data, ip });
        if (outcome.ok) {
          const u = outcome.user;
          const michi = { id: u.id, email: u.email, name: u.name, sessionVersion: u.sessionVersion };
          return { id: u.id, email: u.email, name: u.name, michi } as MichiUser;
        }
        // next-auth passes a thrown message to the sign-in page as ?error=…
        if (outcome.reason === "throttled") throw new Error(throttleMessage(outcome.retryAfterSec));
        return null;
      },
    }),
  ];
  if (e.GITHUB_ID && e.GITHUB_SECRET)
    providers.push(GithubProvider({ clientId: e.GITHUB_ID, clientSecret: e.GITHUB_SECRET }));

  return {
    secret: e.MICHI_AUTH_SECRET,
    session: { strategy: "jwt", maxAge: SESSION_MAX_AGE_SEC },
    useSecureCookies: secureCookies(),
    pages: { signIn: "/signin", error: "/signin" },
    providers,
    logger: {
      error: (code, meta) =>
        log().warn({ code, meta: meta instanceof Error ? meta.message : undefined }, "auth"),
      warn: (code) => log().warn({ code }, "auth"),
      debug: () => {},
    },
    callbacks: {
      async signIn({ user, account }) {
        if (account?.provider === "credentials") return true;
        if (account?.provider !== "github") return false;
        const email = await verifiedGithubEmail(account.access_token);
        if (!email) return "/signin?error=OAuthEmail";
        const db = await getDb();
        const row = await matchOrCreateOAuthUser(
          db.platform,
          { email, name: user.name },
          env().MICHI_ALLOW_SIGNUP,
        );
        if (!row) return "/signin?error=OAuthAccount";
        // Without an adapter next-auth hands this same object to the jwt callback.
        (user as MichiUser).michi = row;
        return true;
      },
      async jwt({ token, user }) {
        if (!user) return token;
        const michi = (user as MichiUser).michi;
        // A token without our claims fails the guard, which is the safe outcome.
        return michi ? { ...tokenClaims(michi) } : {};
      },
      async session({ session, token }) {
        return { ...session, uid: token.uid, sv: token.sv } as typeof session;
      },
    },
  };
}
