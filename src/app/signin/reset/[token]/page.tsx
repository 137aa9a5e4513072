import Link from "next/link";
import { checkResetLink, RESET_LINK_INVALID } from "@/lib/accounts/password-reset";
import { PASSWORD_MIN } from "@/lib/auth/accounts";
import { getDb } from "@/lib/db";
import { ResetForm } from "./ResetForm";

export const metadata = { title: "Choose a new password" };

export default async function ResetPasswordPage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  const link = await checkResetLink(await getDb(), token);
  return (
    <main id="main" className="mx-auto max-w-sm px-6 py-16">
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
    </main>
  );
}
