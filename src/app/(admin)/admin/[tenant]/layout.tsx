import Link from "next/link";
import type { ReactNode } from "react";
import { signOutAction } from "@/app/signin/actions";
import { requireTenant, roleAtLeast } from "@/lib/auth/guard";
import { tenantsOfUser } from "@/lib/db/queries/members";
import { countSwitchedOff } from "@/lib/db/queries/webhooks";
import { AdminNav } from "./AdminNav";
import { TenantSwitcher } from "./TenantSwitcher";

// The admin frame: skip link, banner with the business switcher and the account, section navigation, main.
// It resolves the tenant for its own needs only; every page below calls the guard itself, since a layout
// does not protect the pages it wraps.

export default async function TenantLayout({
  children,
  params,
}: {
  children: ReactNode;
  params: Promise<{ tenant: string }>;
}) {
  const { tenant: slug } = await params;
  const ctx = await requireTenant(slug);
  const mine = await tenantsOfUser(ctx.db.platform, ctx.user.id);
  const base = `/admin/${ctx.tenant.slug}`;
  // The notice of an endpoint the platform switched off stays until someone switches it on again.
  const hooksOff = roleAtLeast(ctx.role, "admin")
    ? await ctx.db.forTenant(ctx.tenant.id, (tx) => countSwitchedOff(tx))
    : 0;
  return (
    <div className="min-h-screen">
      <a
        href="#main"
        className="sr-only focus:not-sr-only focus:absolute focus:left-3 focus:top-3 focus:z-50 focus:rounded-lg focus:bg-[var(--surface)] focus:px-3 focus:py-2 focus:font-semibold"
      >
        Skip to main content
      </a>
      <header className="border-b border-[var(--border)] bg-[var(--surface)]">
        <div className="mx-auto flex max-w-6xl flex-wrap items-center justify-between gap-3 px-4 py-3">
          <div className="flex items-center gap-3">
            <Link href={base} className="font-bold text-brand-700 dark:text-brand-500">
              michi-chat
            </Link>
            <span aria-hidden="true" className="muted">
              /
            </span>
            <TenantSwitcher current={{ slug: ctx.tenant.slug, name: ctx.tenant.name }} tenants={mine} />
            <span className="rounded-full border border-[var(--border)] px-2 py-0.5 text-xs muted">
              {ctx.role}
            </span>
          </div>
          <div className="flex items-center gap-3 text-sm">
            {ctx.user.isOperator ? (
              <Link href="/admin/operator" className="underline">
                Operator console
              </Link>
            ) : null}
            {/* The e-mail, as on the operator pages: a name such as "Operator" next to the link read twice. */}
            <Link href={`${base}/account`} className="muted" title={ctx.user.name || undefined}>
              {ctx.user.email}
            </Link>
            <form action={signOutAction}>
              <button type="submit" className="btn btn-secondary">
                Sign out
              </button>
            </form>
          </div>
        </div>
      </header>
      <div className="mx-auto flex max-w-6xl flex-col gap-6 px-4 py-6 md:flex-row">
        <nav aria-label="Admin sections" className="md:w-48 md:shrink-0">
          <AdminNav base={base} />
        </nav>
        <main id="main" tabIndex={-1} className="min-w-0 flex-1 focus:outline-none">
          {ctx.user.mustChangePassword ? (
            <p role="status" className="card mb-4 border-brand-500 text-sm">
              You signed in with a one-time password.{" "}
              <Link href={`${base}/account`} className="font-semibold underline">
                Choose your own password
              </Link>{" "}
              before you continue.
            </p>
          ) : null}
          {hooksOff > 0 ? (
            <p role="alert" className="card mb-4 border-danger-600 text-sm">
              {hooksOff === 1 ? "A webhook endpoint was" : `${hooksOff} webhook endpoints were`} switched off
              after failing for more than a day.{" "}
              <Link href={`${base}/webhooks`} className="font-semibold underline">
                Check your webhooks
              </Link>
            </p>
          ) : null}
          {children}
        </main>
      </div>
    </div>
  );
}
