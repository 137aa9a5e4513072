import "server-only";
import { formatDateTime } from "@/shared/dates";
import type { TenantContext } from "../auth/access";
import { budgetStatus } from "../chat/limits";
import { detectLocalModelServers } from "../chat/local-models";
import { modelStatus } from "../chat/model";
import { toolRefusals } from "../chat/providers";
import { listPackConfigs } from "../db/queries/packs";
import { env } from "../env";
import { readPackHealth } from "../health/pack-health";
import { ALL_PACKS } from "../tools/index";

// The business's overview: the setup checklist (a model, a pack on and answering, the site's domains, the
// widget seen) and the month's token budget. Every member may read it.

export type SetupItem = { done: boolean; title: string; detail: string; href?: string; fix?: string };

export async function loadOverview(ctx: TenantContext) {
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
  const items: SetupItem[] = [
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
  return { items, budget };
}
