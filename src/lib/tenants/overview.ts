import "server-only";
import { formatDateTime, nextBudgetMonth } from "@/shared/dates";
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
// widget seen, the budget) and what a visitor gets right now. Every member may read it. An item is done only
// when the visitor would notice it working: a pack switched on with nothing to answer from, a pack whose last
// test failed or whose real calls fail, or a budget used up is not "set up".

export type SetupItem = { done: boolean; title: string; detail: string; href?: string; fix?: string };

type PackProblem = { packId: string; text: string };

/** The switched-on packs that cannot help a visitor: empty, failing on real calls, or failed their last test. */
async function packProblems(ctx: TenantContext) {
  return ctx.db.forTenant(ctx.tenant.id, async (tx) => {
    const on = (await listPackConfigs(tx)).filter((p) => p.enabled);
    const health = await readPackHealth(tx);
    const problems: PackProblem[] = [];
    for (const row of on) {
      const pack = ALL_PACKS.find((p) => p.id === row.packId);
      const name = pack?.name ?? row.packId;
      const lacking = pack?.lacks?.(row.config) ?? null;
      const h = health.get(row.packId);
      if (lacking)
        problems.push({
          packId: row.packId,
          text: `${name} is on but has nothing to answer from: fill in ${lacking}.`,
        });
      else if (h?.state === "failing")
        problems.push({
          packId: row.packId,
          text: `${name} failed on its last ${h.streak} call${h.streak === 1 ? "" : "s"}: ${h.lastError?.slice(0, 120) ?? ""}`,
        });
      // A failed test counts until a real call after it went well (or the next test does).
      else if (
        row.lastTestOutcome &&
        row.lastTestOutcome !== "ok" &&
        row.lastTestAt &&
        (!h || h.lastRunAt < row.lastTestAt)
      )
        problems.push({
          packId: row.packId,
          text: `${name} failed its last test (${formatDateTime(row.lastTestAt, { tz: ctx.tenant.timeZone })}): test it again once it is fixed.`,
        });
    }
    return { enabled: on.map((r) => r.packId), problems };
  });
}

function toolItems(base: string, enabled: readonly string[], problems: readonly PackProblem[]): SetupItem[] {
  const on: SetupItem = {
    done: enabled.length > 0,
    title: "At least one tool pack is on",
    detail:
      enabled.length > 0
        ? `${enabled.length} pack${enabled.length === 1 ? " is" : "s are"} on.`
        : "Without packs the assistant can only use its instructions.",
    href: `${base}/tools`,
    fix: enabled.length > 0 ? "Review tools" : "Turn on a tool pack",
  };
  if (enabled.length === 0) return [on];
  return [
    on,
    {
      done: problems.length === 0,
      title: "Your tools answer",
      detail:
        problems.length === 0
          ? "Every switched-on tool has something to answer from, and none has failed on its latest call."
          : problems.map((p) => p.text).join(" · "),
      href: problems.length === 1 ? `${base}/tools/${problems[0]!.packId}` : `${base}/tools`,
      fix:
        problems.length === 0 ? "Review tools" : problems.length === 1 ? "Fix this tool" : "Fix these tools",
    },
  ];
}

/** What a visitor gets right now, in one or two sentences. */
function visitorGets(
  ctx: TenantContext,
  state: { model: boolean; exhausted: boolean; working: string[]; broken: string[] },
): { answers: boolean; text: string } {
  const { tenant } = ctx;
  const unavailable = "The widget tells visitors that the assistant is unavailable";
  if (tenant.status === "suspended")
    return { answers: false, text: `${unavailable}: this business is suspended by the operator.` };
  if (!state.model) return { answers: false, text: `${unavailable}: no model is set up yet.` };
  if (state.exhausted)
    return {
      answers: false,
      text: `${unavailable}: this month's token budget is used up, until it resets on ${formatDateTime(nextBudgetMonth(), { tz: tenant.timeZone })} or the operator raises it.`,
    };
  const from =
    state.working.length > 0
      ? `The assistant answers from its instructions and ${state.working.join(", ")}.`
      : "The assistant answers from its instructions only: no tool gives it your facts yet.";
  const broken =
    state.broken.length > 0
      ? ` Questions for ${state.broken.join(", ")} get no facts: the assistant says it does not know.`
      : "";
  const where =
    tenant.siteDomains.length > 0 ? "" : " The widget opens on no site yet: declare your site's domains.";
  return { answers: true, text: `${from}${broken}${where}` };
}

export async function loadOverview(ctx: TenantContext) {
  const { tenant } = ctx;
  const base = `/admin/${tenant.slug}`;
  const { enabled, problems } = await packProblems(ctx);
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
    ...toolItems(base, enabled, problems),
    {
      done: !budget.exhausted,
      title: "This month's token budget has room",
      detail: budget.exhausted
        ? `It is used up: visitors are told the assistant is unavailable until it resets on ${formatDateTime(nextBudgetMonth(), { tz: tenant.timeZone })} or the operator raises it.`
        : budget.limit === null
          ? "No monthly budget is set."
          : `${budget.used.toLocaleString("en")} of ${budget.limit.toLocaleString("en")} tokens used.`,
      href: `${base}/usage`,
      fix: "See usage",
    },
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
  const brokenIds = new Set(problems.map((p) => p.packId));
  const visitor = visitorGets(ctx, {
    model: model.configured,
    exhausted: budget.exhausted,
    working: enabled.filter((id) => !brokenIds.has(id)).map(packName),
    broken: [...brokenIds].map(packName),
  });
  return { items, budget, visitor };
}
