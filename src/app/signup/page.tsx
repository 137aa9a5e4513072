import Link from "next/link";
import { notFound } from "next/navigation";
import { connection } from "next/server";
import { SIGN_UP_NEEDS_MAIL } from "@/lib/accounts/pending-sign-up";
import { PASSWORD_MIN } from "@/lib/auth/accounts";
import { env } from "@/lib/env";
import { mailDelivery } from "@/lib/mail/send";
import { SignUpForm } from "./SignUpForm";

export const metadata = { title: "Create an account" };

export default async function SignUpPage() {
  await connection(); // read the environment per request, never at build time
  if (!env().MICHI_ALLOW_SIGNUP) notFound();
  return (
    <main id="main" className="mx-auto max-w-sm px-6 py-16">
      <h1 className="text-2xl font-bold">Create your michi-chat account</h1>
      <p className="mt-2 muted">
        You get your own business space, and you will be its owner. We e-mail you a link to finish.
      </p>
      {mailDelivery() === "off" ? (
        <p role="alert" className="mt-6 rounded-lg border px-3 py-2 text-sm">
          {SIGN_UP_NEEDS_MAIL}
        </p>
      ) : (
        <SignUpForm passwordMin={PASSWORD_MIN} />
      )}
      <p className="mt-6 text-sm muted">
        Already have an account?{" "}
        <Link className="font-semibold underline" href="/signin">
          Sign in
        </Link>
      </p>
    </main>
  );
}
