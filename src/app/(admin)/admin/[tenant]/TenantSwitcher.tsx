import Link from "next/link";

type T = { slug: string; name: string };

/** The current business; with several, a disclosure listing the others. Plain links, so it works without JS. */
export function TenantSwitcher({ current, tenants }: { current: T; tenants: readonly T[] }) {
  const others = tenants.filter((t) => t.slug !== current.slug);
  if (others.length === 0) return <span className="font-semibold">{current.name}</span>;
  return (
    <details className="relative">
      <summary className="cursor-pointer font-semibold">
        {current.name} <span className="sr-only">(switch business)</span>
      </summary>
      <ul
        aria-label="Your businesses"
        className="absolute left-0 z-20 mt-2 min-w-56 rounded-lg border border-[var(--border)] bg-[var(--surface)] p-1 shadow-lg"
      >
        {others.map((t) => (
          <li key={t.slug}>
            <Link
              href={`/admin/${t.slug}`}
              className="block rounded px-3 py-2 text-sm hover:bg-[var(--surface-muted)]"
            >
              {t.name} <span className="muted">({t.slug})</span>
            </Link>
          </li>
        ))}
      </ul>
    </details>
  );
}
