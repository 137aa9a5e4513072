import "server-only";
import { formatDateTime, nextBudgetMonth } from "../../shared/dates";
import type { DbHandle } from "../db/client";
import { recordNotice, tenantsWithFailedRuns } from "../db/queries/health";
import { listMembers } from "../db/queries/members";
import { listTenantsOverview } from "../db/queries/operator";
import { listPackConfigs } from "../db/queries/packs";
import { usageMonth } from "../db/queries/usage";
import { env } from "../env";
import { registerJob } from "../jobs";
import { log } from "../log";
import { sendMail } from "../mail/send";
import { ALL_PACKS } from "../tools/index";
import { readPackHealth } from "./pack-health";

// Mails a business's owners about trouble they would otherwise only find by looking: a switched-on pack that
// has failed for a while, and the month's token budget at 80% and at 100%. Each notice is recorded before it
// is sent (tenant_notices), inside the tenant's transaction, so the same trouble is mailed once however many
// instances run the check; a pack that recovers and fails again starts a new streak and is mailed again.

/** A pack "has failed for a while": this many failed runs in a row, the first this long ago. */
export const FAILING_RUNS = 3;
export const FAILING_FOR_MS = 15 * 60_000;
export const BUDGET_THRESHOLDS = [80, 100] as const;

type Notice = { tenantId: string; to: string[]; subject: string; text: string };

async function owners(tx: Parameters<typeof listMembers>[0], tenantId: string): Promise<string[]> {
  return (await listMembers(tx, tenantId)).filter((m) => m.role === "owner").map((m) => m.email);
}

async function packNotices(db: DbHandle, now: Date): Promise<Notice[]> {
  const out: Notice[] = [];
  const overview = new Map((await listTenantsOverview(db.platform)).map((t) => [t.id, t]));
  for (const tenantId of await tenantsWithFailedRuns(db.platform, new Date(now.getTime() - 86_400_000))) {
    const tenant = overview.get(tenantId);
    if (!tenant || tenant.status !== "active") continue;
    const found = await db.forTenant(tenantId, async (tx) => {
      const enabled = new Set((await listPackConfigs(tx)).filter((p) => p.enabled).map((p) => p.packId));
      const failing = [...(await readPackHealth(tx)).values()].filter(
        (h) =>
          enabled.has(h.packId) &&
          h.streak >= FAILING_RUNS &&
          h.failingSince &&
          now.getTime() - h.failingSince.getTime() >= FAILING_FOR_MS,
      );
      const fresh = [];
      for (const h of failing)
        if (await recordNotice(tx, tenantId, "pack_failing", `${h.packId}:${h.failingSince!.toISOString()}`))
          fresh.push(h);
      return fresh.length > 0 ? { fresh, to: await owners(tx, tenantId) } : null;
    });
    for (const h of found?.fresh ?? []) {
      const name = ALL_PACKS.find((p) => p.id === h.packId)?.name ?? h.packId;
      out.push({
        tenantId,
        to: found!.to,
        subject: `${name} is failing for ${tenant.name}`,
        text: [
          `The "${name}" tool of ${tenant.name} has failed on its last ${h.streak} calls, since ${formatDateTime(h.failingSince!, { tz: tenant.timeZone })}.`,
          "Visitors who ask about it get no answer from it.",
          "",
          `The last error, as the assistant saw it: ${h.lastError ?? "(none recorded)"}`,
          "",
          `Check its settings and run its test: ${env().MICHI_PUBLIC_URL}/admin/${tenant.slug}/tools/${h.packId}`,
          "You get this mail once for this failure; it is sent again only if the tool recovers and fails again.",
        ].join("\n"),
      });
    }
  }
  return out;
}

async function budgetNotices(db: DbHandle, now: Date): Promise<Notice[]> {
  const out: Notice[] = [];
  const month = usageMonth(now);
  for (const t of await listTenantsOverview(db.platform, month)) {
    const limit = t.monthlyTokenBudget ?? env().MICHI_DEFAULT_MONTHLY_TOKENS;
    if (t.status !== "active" || !limit || limit <= 0) continue;
    const percent = (t.tokensThisMonth / limit) * 100;
    const reached = BUDGET_THRESHOLDS.filter((p) => percent >= p);
    if (reached.length === 0) continue;
    // Only the highest threshold reached is mailed: a business that jumps past both gets one mail.
    const top = Math.max(...reached);
    const to = await db.forTenant(t.id, async (tx) => {
      let fresh = false;
      for (const p of reached) fresh = (await recordNotice(tx, t.id, "budget", `${month}:${p}`)) || fresh;
      return fresh ? owners(tx, t.id) : null;
    });
    if (!to) continue;
    const nf = new Intl.NumberFormat("en");
    const resets = formatDateTime(nextBudgetMonth(now), { tz: t.timeZone });
    out.push({
      tenantId: t.id,
      to,
      subject:
        top >= 100
          ? `${t.name} has used this month's token budget`
          : `${t.name} has used ${top}% of this month's token budget`,
      text: [
        `${t.name} has used ${nf.format(t.tokensThisMonth)} of its ${nf.format(limit)} tokens this month.`,
        top >= 100
          ? `The chat widget now tells visitors the assistant is unavailable, until the budget resets on ${resets} or the platform operator raises it.`
          : `When the budget is used up, the chat widget tells visitors the assistant is unavailable until it resets on ${resets}.`,
        "",
        `Usage: ${env().MICHI_PUBLIC_URL}/admin/${t.slug}/usage`,
      ].join("\n"),
    });
  }
  return out;
}

/** One round of the check; the mails go after the notices are recorded. Returns how many mails were sent. */
export async function sendHealthNotices(db: DbHandle, opts: { now?: Date } = {}): Promise<number> {
  const now = opts.now ?? new Date();
  const notices = [...(await packNotices(db, now)), ...(await budgetNotices(db, now))];
  let sent = 0;
  for (const n of notices)
    for (const to of n.to) {
      const r = await sendMail({
        to,
        subject: n.subject,
        text: n.text,
        kind: "health",
        tenantId: n.tenantId,
      });
      if (r.status !== "failed") sent++;
      else log().warn({ tenantId: n.tenantId, error: r.error }, "health notice mail failed");
    }
  return sent;
}

/** Registers the check with the process's periodic jobs (boot): every five minutes. */
export function registerHealthNotices(db: DbHandle): void {
  registerJob({
    name: "health-notices",
    everyMs: 5 * 60_000,
    // "Failed for a while" needs a while: nothing is due in the first minutes, when start-up is busiest.
    runAtStart: false,
    run: async () => {
      try {
        await sendHealthNotices(db);
      } catch (err) {
        log().error({ err }, "health notices failed");
      }
    },
  });
}
