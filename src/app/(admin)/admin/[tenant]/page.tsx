import type { Metadata } from "next";
import Link from "next/link";
import { Card, PageHeader } from "@/components/ui";
import { requireTenant } from "@/lib/auth/guard";
import { budgetStatus } from "@/lib/chat/limits";
import { detectLocalModelServers } from "@/lib/chat/local-models";
import { modelStatus } from "@/lib/chat/model";
import { toolRefusals } from "@/lib/chat/providers";
import { listPackConfigs } from "@/lib/db/queries/packs";
import { env } from "@/lib/env";
import { readPackHealth } from "@/lib/health/pack-health";
import { ALL_PACKS } from "@/lib/tools/index";
import { formatDateTime } from "@/shared/dates";

export const metadata: Metadata = { title: "Overview" };

type Item = { done: boolean; title: string; detail: string; href?: string; fix?: string };

const nf = new Intl.NumberFormat("en");

export default async function OverviewPage({ params }: { params: Promise<{ tenant: string }> }) {
  const { tenant: slug } = await params;
  const ctx = await requireTenant(slug);
  const { tenant } = ctx;
  const base = `/admin/${tenant.slug}`;
  const { enabled, failing } = await ctx.db.forTenant(tenant.id, async (tx) => {
    const on = (await listPackConfigs(tx)).filter((p) => p.enabled).map((p) => p.packId);
    const health = await readPackHealth(tx);
    return {
      enabled: on,
      failing: on.flatMap((id) => (health.get(id)?.state === "failing" ? [health.get(id)!] : [])),
    };
  });
  const enabledPacks = enabled.length;
  const packName = (id: string) => ALL_PACKS.find((p) => p.id === id)?.name ?? id;
  const model = modelStatus();
  const budget = await budgetStatus(ctx.db, tenant.id);
  // In development, a local model server on its usual address is one click away (the operator's Models page).
  const [local] = !model.configured && env().NODE_ENV !== "production" ? await detectLocalModelServers() : [];

  // Learned by this process from the model server's own refusal (src/lib/chat/model-call.ts).
  const refused = model.configured ? toolRefusals().filter((r) => model.models.includes(r.model)) : [];
  const items: Item[] = [
    model.configured
      ? {
          done: true,
          title: "A model is available",
          detail: `The operator allows ${model.models.join(", ")}.`,
          href: `${base}/bot`,
          fix: "Choose the model on the Bot page",
        }
      : {
          done: false,
          title: "A model is available",
          detail: local
            ? `${model.reason} ${local.name} answers on this machine (${local.models.slice(0, 3).join(", ")}): the operator can use it in one click.`
            : model.reason,
          ...(local && ctx.user.isOperator
            ? { href: "/admin/operator/models#local", fix: `Use ${local.name}` }
            : {}),
        },
    ...refused.map((r) => ({
      done: false,
      title: `Your model server accepts tools (${r.model})`,
      detail: `Your model server does not accept tools, so the assistant answers without your packs. It said: "${r.reason}". ${r.advice}`,
    })),
    {
      done: enabledPacks > 0,
      title: "At least one tool pack is on",
      detail:
        enabledPacks > 0
          ? `${enabledPacks} pack${enabledPacks === 1 ? " is" : "s are"} on.`
          : "Without packs the assistant can only use its instructions.",
      href: `${base}/tools`,
      fix: enabledPacks > 0 ? "Review tools" : "Turn on a tool pack",
    },
    ...(enabledPacks > 0
      ? [
          {
            done: failing.length === 0,
            title: "Your tools answer",
            detail:
              failing.length === 0
                ? "No switched-on tool has failed on its latest call."
                : failing
                    .map(
                      (h) =>
                        `${packName(h.packId)} failed on its last ${h.streak} call${h.streak === 1 ? "" : "s"}: ${h.lastError?.slice(0, 120) ?? ""}`,
                    )
                    .join(" · "),
            href: failing.length === 1 ? `${base}/tools/${failing[0]!.packId}` : `${base}/tools`,
            fix: failing.length === 0 ? "Review tools" : "Check the failing tool",
          },
        ]
      : []),
    {
      done: tenant.siteDomains.length > 0,
      title: "Your site's domains are declared",
      detail:
        tenant.siteDomains.length > 0
          ? tenant.siteDomains.join(", ")
          : "The widget only answers on the domains you declare.",
      href: `${base}/embed`,
      fix: tenant.siteDomains.length > 0 ? "Edit domains" : "Declare your domains",
    },
    {
      done: tenant.widgetSeenAt !== null,
      title: "The widget was seen on your site",
      detail: tenant.widgetSeenAt
        ? `Last seen ${formatDateTime(tenant.widgetSeenAt, { tz: tenant.timeZone })}.`
        : "Paste the embed snippet into your site; this turns green once a visitor loads it.",
      href: `${base}/embed`,
      fix: "Get the embed snippet",
    },
  ];
  const remaining = items.filter((i) => !i.done).length;

  return (
    <div className="max-w-3xl space-y-6">
      <PageHeader
        title={tenant.name}
        description={
          remaining === 0
            ? "Everything is set up."
            : `${remaining} step${remaining === 1 ? "" : "s"} left to set up.`
        }
      />
      {tenant.status === "suspended" ? (
        <p role="alert" className="card border-danger-600 text-sm">
          <strong>This business is suspended by the platform operator.</strong> The chat widget does not
          answer visitors until it is resumed. Contact the operator of this installation.
        </p>
      ) : null}
      {budget.exhausted ? (
        <p role="alert" className="card border-danger-600 text-sm">
          <strong>This month&apos;s token budget is used up</strong> ({nf.format(budget.used)} of{" "}
          {nf.format(budget.limit ?? 0)} tokens). The widget tells visitors the assistant is unavailable until
          the budget resets on the 1st (UTC) or the operator raises it.
        </p>
      ) : null}
      <Card id="setup" title="Setup checklist">
        <ol className="space-y-3">
          {items.map((item) => (
            <li key={item.title} className="flex gap-3">
              <span
                aria-hidden="true"
                className={`mt-0.5 inline-flex size-6 shrink-0 items-center justify-center rounded-full text-sm font-bold text-white ${item.done ? "bg-ok-600" : "bg-slate-400"}`}
              >
                {item.done ? "✓" : ""}
              </span>
              <div>
                <p className="font-semibold">
                  {item.title} <span className="sr-only">{item.done ? "(done)" : "(to do)"}</span>
                </p>
                <p className="text-sm muted">{item.detail}</p>
                {item.href && item.fix ? (
                  <Link href={item.href} className="text-sm font-semibold underline">
                    {item.fix}
                  </Link>
                ) : null}
              </div>
            </li>
          ))}
        </ol>
      </Card>
      <Card id="usage" title="This month">
        <p className="text-sm">
          {nf.format(budget.used)} tokens used
          {budget.limit !== null ? ` of ${nf.format(budget.limit)}` : " (no monthly budget)"}.
        </p>
      </Card>
    </div>
  );
}
