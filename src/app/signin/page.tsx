import Link from "next/link";
import { redirect } from "next/navigation";
import { sessionUser } from "@/lib/auth/access";
import { githubEnabled } from "@/lib/auth/options";
import { safeCallbackPath } from "@/lib/auth/redirect";
import { env } from "@/lib/env";
import { SignInForm } from "./SignInForm";

export const metadata = { title: "Sign in" };

// Messages for the ?error= codes next-auth sends back here after an OAuth attempt. Only known codes are
// shown: echoing arbitrary query text would let a link put any words on our sign-in page.
const OAUTH_ERRORS: Record<string, string> = {
  OAuthEmail: "GitHub did not give us a verified e-mail address. Verify one on GitHub and try again.",
  OAuthAccount: "There is no account for that e-mail yet. Ask the owner of your business for an invitation.",
  OAuthSignin: "GitHub sign-in could not start. Try again.",
  OAuthCallback: "GitHub sign-in did not complete. Try again.",
  AccessDenied: "That sign-in was refused.",
  CredentialsSignin: "Wrong e-mail or password. Check both and try again.",
  SessionRequired: "Sign in to continue.",
};
const RESET_DONE =
  "Your password was changed and every device was signed out. Sign in with the new password.";
const THROTTLED = /^Too many attempts\. Try again in \d+ minutes?\.$/;

function errorText(code: string | undefined): string | null {
  if (!code) return null;
  if (THROTTLED.test(code)) return code;
  return OAUTH_ERRORS[code] ?? "Sign-in failed. Try again.";
}

export default async function SignInPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const sp = await searchParams;
  const callbackUrl = safeCallbackPath(typeof sp.callbackUrl === "string" ? sp.callbackUrl : undefined);
  const { user } = await sessionUser();
  if (user) redirect(callbackUrl);
  const error = errorText(typeof sp.error === "string" ? sp.error : undefined);
  const notice = sp.reset === "1" ? RESET_DONE : null;
  return (
    <main id="main" className="mx-auto max-w-sm px-6 py-16">
      <h1 className="text-2xl font-bold">Sign in to michi-chat</h1>
      {error ? (
        <p
          role="alert"
          className="mt-4 rounded-lg border border-danger-600/40 bg-danger-600/10 px-3 py-2 text-sm"
        >
          {error}
        </p>
      ) : null}
      {notice ? (
        <p role="status" className="mt-4 rounded-lg border px-3 py-2 text-sm">
          {notice}
        </p>
      ) : null}
      <SignInForm callbackUrl={callbackUrl} github={githubEnabled()} />
      <p className="mt-4 text-sm">
        <Link className="font-semibold underline" href="/signin/forgot">
          Forgot password?
        </Link>
      </p>
      {env().MICHI_ALLOW_SIGNUP ? (
        <p className="mt-6 text-sm muted">
          New here?{" "}
          <Link className="font-semibold underline" href="/signup">
            Create an account for your business
          </Link>
        </p>
      ) : null}
    </main>
  );
}
