import Link from "next/link";
import type { ReactNode } from "react";
import { signOutAction } from "@/app/signin/actions";
import { requireOperator } from "@/lib/auth/guard";

// Frame of the operator pages. Each page calls requireOperator itself as well.
export default async function OperatorLayout({ children }: { children: ReactNode }) {
  const { user } = await requireOperator();
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
          <nav aria-label="Operator" className="flex items-center gap-3">
            <Link href="/admin/operator" className="font-bold text-brand-700 dark:text-brand-500">
              michi-chat operator
            </Link>
            <Link href="/admin/operator/usage" className="text-sm underline">
              Usage
            </Link>
            <Link href="/admin/operator/models" className="text-sm underline">
              Models
            </Link>
            <Link href="/admin/operator/outbox" className="text-sm underline">
              Outbox
            </Link>
            <Link href="/admin/operator#mine" className="text-sm underline">
              My businesses
            </Link>
          </nav>
          <div className="flex items-center gap-3 text-sm">
            <span className="muted">{user.email}</span>
            <form action={signOutAction}>
              <button type="submit" className="btn btn-secondary">
                Sign out
              </button>
            </form>
          </div>
        </div>
      </header>
      <main id="main" tabIndex={-1} className="mx-auto max-w-6xl px-4 py-6 focus:outline-none">
        {children}
      </main>
    </div>
  );
}
