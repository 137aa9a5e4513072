import type { Metadata } from "next";
import Link from "next/link";
import { redirect } from "next/navigation";
import { PageHeader } from "@/components/ui/PageHeader";
import { requireTenant, roleAtLeast } from "@/lib/auth/guard";
import { readPackHealth } from "@/lib/health/pack-health";
import { loadPackGroups } from "@/lib/pack-settings/settings";
import { togglePackAction } from "./actions";
import { PackStatus } from "./PackStatus";
import { PackSwitch } from "./PackSwitch";

export const metadata: Metadata = { title: "Tools" };

// A list to scan: one row per pack (name, one line, status, switch); each pack's form lives on its own page
// (/tools/<pack id>). Old links still land: `?pack=<id>` goes to that page, and `#pack-<id>` (the anchor the
// one-page form used) is the row's id.

export default async function ToolsPage({
  params,
  searchParams,
}: {
  params: Promise<{ tenant: string }>;
  searchParams: Promise<{ pack?: string | string[] }>;
}) {
  const { tenant: slug } = await params;
  const ctx = await requireTenant(slug);
  const groups = await loadPackGroups(ctx);
  const health = await ctx.db.forTenant(ctx.tenant.id, readPackHealth);
  const wanted = (await searchParams).pack;
  const base = `/admin/${ctx.tenant.slug}/tools`;
  if (typeof wanted === "string" && groups.some((g) => g.packs.some((p) => p.id === wanted)))
    redirect(`${base}/${encodeURIComponent(wanted)}`);
  const canEdit = roleAtLeast(ctx.role, "admin");
  const toggle = togglePackAction.bind(null, ctx.tenant.slug);
  return (
    <div>
      <PageHeader
        title="Tools"
        description="Tools let the bot look up live facts for your visitors. Turn on the ones you need; open one to fill in its settings and test it."
      />
      <p className="mb-6 text-sm muted">
        Addresses must be on your site&apos;s domains, which you declare under{" "}
        <Link className="underline" href={`/admin/${ctx.tenant.slug}/embed`}>
          Site &amp; embed
        </Link>
        .
      </p>
      <div className="space-y-8">
        {groups.map((g, i) => (
          <section key={g.category} aria-labelledby={`tools-cat-${i}`}>
            <h2 id={`tools-cat-${i}`} className="mb-3 font-bold text-xl">
              {g.category}
            </h2>
            <ul className="card divide-y divide-[var(--border)] p-0">
              {g.packs.map((p) => (
                <li
                  key={p.id}
                  id={`pack-${p.id}`}
                  data-pack={p.id}
                  className="flex flex-wrap items-center justify-between gap-3 px-4 py-3 sm:flex-nowrap"
                >
                  <div className="min-w-0 flex-1">
                    <h3 className="font-semibold">
                      <Link className="underline-offset-2 hover:underline" href={`${base}/${p.id}`}>
                        {p.name}
                      </Link>
                    </h3>
                    {p.summary ? <p className="muted text-sm">{p.summary}</p> : null}
                    <div className="mt-1">
                      <PackStatus pack={p} health={health.get(p.id)} tz={ctx.tenant.timeZone} />
                    </div>
                  </div>
                  <PackSwitch
                    packId={p.id}
                    name={p.name}
                    enabled={p.enabled}
                    canEdit={canEdit}
                    action={toggle}
                  />
                </li>
              ))}
            </ul>
          </section>
        ))}
      </div>
    </div>
  );
}
