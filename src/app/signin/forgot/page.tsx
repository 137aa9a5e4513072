import Link from "next/link";
import { connection } from "next/server";
import { mailDelivery } from "@/lib/mail/send";
import { ForgotForm } from "./ForgotForm";

export const metadata = { title: "Forgot your password?" };

export default async function ForgotPasswordPage() {
  await connection(); // the mail settings are read per request, never at build time
  const delivery = mailDelivery();
  return (
    <main id="main" className="mx-auto max-w-sm px-6 py-16">
      <h1 className="text-2xl font-bold">Forgot your password?</h1>
      {delivery === "off" ? (
        <p role="note" className="mt-4 rounded-lg border px-3 py-2 text-sm">
          Mail is off on this installation, so we cannot send you a link. Ask the person who runs it (the
          operator) to set a new password for you, or to set up mail.
        </p>
      ) : (
        <>
          <p className="mt-2 muted">
            Enter the e-mail address of your account and we send you a link to choose a new one.
          </p>
          {delivery === "outbox" ? (
            <p role="note" className="mt-4 rounded-lg border px-3 py-2 text-sm">
              No mail server is configured here: the mail waits in the operator&apos;s Outbox (and, in
              development, in the server&apos;s log).
            </p>
          ) : null}
          <ForgotForm />
        </>
      )}
      <p className="mt-6 text-sm">
        <Link className="font-semibold underline" href="/signin">
          Back to sign-in
        </Link>
      </p>
    </main>
  );
}
