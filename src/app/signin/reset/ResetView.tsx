import Link from "next/link";
import { RESET_LINK_INVALID } from "@/lib/accounts/password-reset";
import { PASSWORD_MIN } from "@/lib/auth/accounts";
import { ResetForm } from "./ResetForm";

// The reset page for the token the page POSTed (openResetLinkAction): the token never appears in a URL the
// server is asked for.
export function ResetView({ link, token }: { link: { email: string } | null; token: string }) {
  return (
    <>
      <h1 className="text-2xl font-bold">Choose a new password</h1>
      {link ? (
        <>
          <p className="mt-2 muted">
            For <strong>{link.email}</strong>. Every device signed in to this account is signed out when you
            save.
          </p>
          <ResetForm token={token} passwordMin={PASSWORD_MIN} />
        </>
      ) : (
        <>
          <p role="alert" className="mt-4 rounded-lg border px-3 py-2 text-sm">
            {RESET_LINK_INVALID}
          </p>
          <p className="mt-6 text-sm">
            <Link className="font-semibold underline" href="/signin/forgot">
              Ask for a new link
            </Link>
          </p>
        </>
      )}
    </>
  );
}
