import { connection } from "next/server";
import { FragmentLink } from "@/components/link/FragmentLink";
import { openSignUpLinkAction } from "./actions";

export const metadata = { title: "Finish creating your account" };

// The link is /signup/confirm#<token>: the page is the same for everyone, and asks for the sign-up with the
// token in a POST body once it has read the fragment.
export default async function ConfirmSignUpPage() {
  // Rendered per request, never prerendered: the page's scripts need the nonce of this view (src/proxy.ts).
  await connection();
  return (
    <main id="main" className="mx-auto max-w-sm px-6 py-16">
      <FragmentLink
        storageKey="michi.signup"
        open={openSignUpLinkAction}
        failed={
          <>
            <h1 className="text-2xl font-bold">Finish creating your account</h1>
            <p role="alert" className="mt-4 rounded-lg border px-3 py-2 text-sm">
              The link could not be opened. Check your connection and reload the page.
            </p>
          </>
        }
      >
        <h1 className="text-2xl font-bold">Finish creating your account</h1>
        <p className="mt-2 muted" role="status">
          Opening the link…
        </p>
      </FragmentLink>
    </main>
  );
}
