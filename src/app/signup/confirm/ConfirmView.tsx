import Link from "next/link";
import { SIGN_UP_LINK_INVALID } from "@/lib/accounts/pending-sign-up";
import { ConfirmForm } from "./ConfirmForm";

// The confirmation page for the token the page POSTed (openSignUpLinkAction): the token never appears in a
// URL the server is asked for.
export function ConfirmView({
  link,
  token,
}: {
  link: { email: string; business: string; invited: boolean } | null;
  token: string;
}) {
  return (
    <>
      <h1 className="text-2xl font-bold">Finish creating your account</h1>
      {link ? (
        <>
          <p className="mt-2 muted">
            For <strong>{link.email}</strong>
            {link.invited ? (
              <>
                , joining <strong>{link.business}</strong>.
              </>
            ) : (
              <>
                , with your business <strong>{link.business}</strong>.
              </>
            )}{" "}
            Enter the password you chose when you signed up.
          </p>
          <ConfirmForm token={token} />
        </>
      ) : (
        <>
          <p role="alert" className="mt-4 rounded-lg border px-3 py-2 text-sm">
            {SIGN_UP_LINK_INVALID}
          </p>
          <p className="mt-6 text-sm">
            <Link className="font-semibold underline" href="/signin">
              Sign in
            </Link>
          </p>
        </>
      )}
    </>
  );
}
