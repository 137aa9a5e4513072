import type { Metadata } from "next";
import Link from "next/link";
import { PageHeader } from "@/components/ui/PageHeader";
import { requireTenant, roleAtLeast } from "@/lib/auth/guard";
import { loadPackGroups } from "@/lib/pack-settings/settings";
import { savePackAction, testPackAction } from "./actions";
import { PackCard } from "./PackCard";

export const metadata: Metadata = { title: "Tools" };

export default async function ToolsPage({ params }: { params: Promise<{ tenant: string }> }) {
  const { tenant: slug } = await params;
  const ctx = await requireTenant(slug);
  const groups = await loadPackGroups(ctx);
  const canEdit = roleAtLeast(ctx.role, "admin");
  const save = savePackAction.bind(null, ctx.tenant.slug);
  const test = testPackAction.bind(null, ctx.tenant.slug);
  return (
    <div>
      <PageHeader
        title="Tools"
        description="Tools let the bot look up live facts for your visitors. Turn on the ones you need and fill in their settings."
      />
      <p className="mb-6 text-sm muted">
        Addresses must be on your site&apos;s domains, which you declare under{" "}
        <Link className="underline" href={`/admin/${ctx.tenant.slug}/embed`}>
          Site &amp; embed
        </Link>
        .
      </p>
      <div className="space-y-10">
        {groups.map((g, i) => (
          <section key={g.category} aria-labelledby={`tools-cat-${i}`}>
            <h2 id={`tools-cat-${i}`} className="mb-3 font-bold text-xl">
              {g.category}
            </h2>
            <div className="space-y-4">
              {g.packs.map((p) => (
                <PackCard key={p.id} pack={p} canEdit={canEdit} saveAction={save} testAction={test} />
              ))}
            </div>
          </section>
        ))}
      </div>
    </div>
  );
}
