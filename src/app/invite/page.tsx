import { connection } from "next/server";
import { FragmentLink } from "@/components/link/FragmentLink";
import { openInvitationAction } from "./actions";

export const metadata = { title: "Invitation" };

// The link is /invite#<token>: the page itself is the same for everyone, and asks for the invitation with
// the token in a POST body once it has read the fragment.
export default async function InvitationPage() {
  // Rendered per request, never prerendered: the page's scripts need the nonce of this view (src/proxy.ts).
  await connection();
  return (
    <main id="main" className="mx-auto max-w-md px-6 py-16">
      <FragmentLink
        storageKey="michi.invite"
        open={openInvitationAction}
        failed={
          <>
            <h1 className="text-2xl font-bold">Invitation</h1>
            <p role="alert" className="mt-4 rounded-lg border px-3 py-2 text-sm">
              The invitation could not be opened. Check your connection and reload the page.
            </p>
          </>
        }
      >
        <h1 className="text-2xl font-bold">Invitation</h1>
        <p className="mt-2 muted" role="status">
          Opening the invitation…
        </p>
      </FragmentLink>
    </main>
  );
}
