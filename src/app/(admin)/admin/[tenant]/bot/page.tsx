import type { Metadata } from "next";
import { PageHeader } from "@/components/ui/PageHeader";
import { requireTenant, roleAtLeast } from "@/lib/auth/guard";
import { botFormValues } from "@/lib/bot/form";
import { getTenantSettings } from "@/lib/db/queries/bot";
import { env } from "@/lib/env";
import { saveBotAction } from "./actions";
import { BotForm } from "./BotForm";

export const metadata: Metadata = { title: "Bot" };

export default async function BotPage({ params }: { params: Promise<{ tenant: string }> }) {
  const { tenant: slug } = await params;
  const ctx = await requireTenant(slug);
  const settings = await ctx.db.forTenant(ctx.tenant.id, (tx) => getTenantSettings(tx, ctx.tenant.id));
  return (
    <div className="max-w-6xl">
      <PageHeader
        title="Bot"
        description="How your assistant introduces itself, what it knows it should do, and how it looks."
      />
      <BotForm
        action={saveBotAction.bind(null, ctx.tenant.slug)}
        values={botFormValues(settings?.bot ?? {})}
        models={[...env().MICHI_MODELS]}
        canEdit={roleAtLeast(ctx.role, "admin")}
        widgetKey={settings?.widgetKey ?? ctx.tenant.widgetKey}
        businessName={ctx.tenant.name}
      />
    </div>
  );
}
