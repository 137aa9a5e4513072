import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { PageHeader } from "@/components/ui/PageHeader";
import { requireTenant, roleAtLeast } from "@/lib/auth/guard";
import { readPackHealth } from "@/lib/health/pack-health";
import { loadPackView } from "@/lib/pack-settings/settings";
import { savePackAction, testPackAction } from "../actions";
import { PackCard } from "../PackCard";
import { PackStatus } from "../PackStatus";
import { TestPanel } from "../TestPanel";

export const metadata: Metadata = { title: "Tool settings" };

/** One pack at a time: its settings form, then the Test panel generated from its parameters. */
export default async function PackPage({ params }: { params: Promise<{ tenant: string; packId: string }> }) {
  const { tenant: slug, packId } = await params;
  const ctx = await requireTenant(slug);
  const pack = await loadPackView(ctx, packId);
  if (!pack) notFound();
  const health = (await ctx.db.forTenant(ctx.tenant.id, readPackHealth)).get(pack.id);
  const canEdit = roleAtLeast(ctx.role, "admin");
  const base = `/admin/${ctx.tenant.slug}/tools`;
  return (
    <div className="space-y-6">
      <nav aria-label="Breadcrumb" className="text-sm">
        <Link className="underline" href={base}>
          ← All tools
        </Link>
      </nav>
      <PageHeader
        title={pack.name}
        description={pack.summary ?? undefined}
        actions={<PackStatus pack={pack} health={health} tz={ctx.tenant.timeZone} />}
      />
      <p className="muted -mt-4 text-sm">
        Visitors see <span className="badge">{pack.label}</span> while it runs. The model calls it{" "}
        <code className="font-mono text-xs">{pack.id}</code>.
      </p>
      <PackCard
        pack={pack}
        canEdit={canEdit}
        saveAction={savePackAction.bind(null, ctx.tenant.slug)}
        timeZone={ctx.tenant.timeZone}
      />
      {canEdit ? (
        <TestPanel
          packId={pack.id}
          idPrefix={`pack-${pack.id}`}
          fields={pack.args}
          example={pack.exampleArgs}
          action={testPackAction.bind(null, ctx.tenant.slug)}
        />
      ) : null}
    </div>
  );
}
