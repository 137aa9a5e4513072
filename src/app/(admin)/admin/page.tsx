import { redirect } from "next/navigation";
import { signOutAction } from "@/app/signin/actions";
import { requireUser } from "@/lib/auth/guard";
import { tenantsOfUser } from "@/lib/db/queries/members";

export const metadata = { title: "Admin" };

/**
 * The landing after sign-in: the operator's console (the list of every business, theirs marked), else the
 * person's first business, else an explanation.
 */
export default async function AdminIndex() {
  const { user, db } = await requireUser("/admin");
  if (user.isOperator) redirect("/admin/operator");
  const [first] = await tenantsOfUser(db.platform, user.id);
  if (first) redirect(`/admin/${first.slug}`);
  return (
    <main id="main" className="mx-auto max-w-lg px-6 py-16">
      <h1 className="text-2xl font-bold">You are not part of a business yet</h1>
      <p className="mt-3 muted">
        You are signed in as {user.email}, but no business has added you to its team. Ask the owner of your
        business to add this e-mail address on their Team page, then sign in again.
      </p>
      <form action={signOutAction} className="mt-6">
        <button type="submit" className="btn btn-secondary">
          Sign out
        </button>
      </form>
    </main>
  );
}
