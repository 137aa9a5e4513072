import Link from "next/link";
import type { SessionUser } from "@/lib/auth/access";
import { PASSWORD_MIN } from "@/lib/auth/accounts";
import type { InvitationView as View } from "@/lib/team/invitations";
import { formatDateTime } from "@/shared/dates";
import { AcceptForm, InviteSignUpForm } from "./InviteForms";
import { INVITE_PATH } from "./path";

// What the holder of an invitation link sees, rendered on the server for the token the page POSTed
// (openInvitationAction): the token never appears in a URL the server is asked for.

const ROLE_WORDS = { owner: "an owner", admin: "an admin", viewer: "a viewer" } as const;

const CLOSED = {
  unknown: "This invitation link is not valid. Check that you copied all of it.",
  accepted: "This invitation has already been used.",
  revoked: "This invitation was withdrawn. Ask the owner of the business for a new one.",
  expired: "This invitation has expired. Ask the owner of the business for a new one.",
} as const;

/** Where the invitation page is; the token stays in the tab (see FragmentLink), never in this path. */

export function InvitationView({
  view,
  token,
  user,
}: {
  view: View;
  token: string;
  user: SessionUser | null;
}) {
  return (
    <>
      <h1 className="text-2xl font-bold">
        {view.state === "open" ? `Join ${view.business} on michi-chat` : "Invitation"}
      </h1>
      {view.state !== "open" ? (
        <>
          <p role="alert" className="mt-4 rounded-lg border px-3 py-2 text-sm">
            {CLOSED[view.state]}
          </p>
          <p className="mt-6 text-sm">
            <Link className="font-semibold underline" href={user ? "/admin" : "/signin"}>
              {user ? "Go to your businesses" : "Sign in"}
            </Link>
          </p>
        </>
      ) : (
        <>
          <p className="mt-2">
            {view.inviter} invited you to join <strong>{view.business}</strong> as {ROLE_WORDS[view.role]}.
            The invitation expires on {formatDateTime(view.expiresAt, { tz: view.timeZone })}.
          </p>
          {user ? (
            <section className="card mt-6" aria-labelledby="accept-title">
              <h2 id="accept-title" className="font-semibold">
                Accept as {user.email}
              </h2>
              {user.email.toLowerCase() !== view.email.toLowerCase() ? (
                <p className="mt-2 text-sm">
                  The invitation was sent to {view.email}. Accepting adds the account you are signed in with.
                  To use another account, sign out first.
                </p>
              ) : null}
              <AcceptForm token={token} business={view.business} />
            </section>
          ) : (
            <>
              <section className="card mt-6" aria-labelledby="signin-title">
                <h2 id="signin-title" className="font-semibold">
                  Already have a michi-chat account?
                </h2>
                <p className="mt-2 text-sm">Sign in, and you come back here to accept.</p>
                <p className="mt-3">
                  <Link
                    className="btn btn-secondary"
                    href={`/signin?callbackUrl=${encodeURIComponent(INVITE_PATH)}`}
                  >
                    Sign in to accept
                  </Link>
                </p>
              </section>
              <section className="card mt-6" aria-labelledby="signup-title">
                <h2 id="signup-title" className="font-semibold">
                  New to michi-chat? Create your account
                </h2>
                <InviteSignUpForm token={token} email={view.email} passwordMin={PASSWORD_MIN} />
              </section>
            </>
          )}
        </>
      )}
    </>
  );
}
