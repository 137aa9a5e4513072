import type { Metadata } from "next";
import Link from "next/link";
import { Card, PageHeader } from "@/components/ui";
import { requireOperator } from "@/lib/auth/guard";
import { modelStatus } from "@/lib/chat/model";
import { channelsSwitchedOn } from "@/lib/db/queries/channels";
import { tenantsOfUser } from "@/lib/db/queries/members";
import { listTenantsOverview } from "@/lib/db/queries/operator";
import { usageMonth } from "@/lib/db/queries/usage";
import { env } from "@/lib/env";
import { createTenantAction } from "./actions";
import { ChannelsSwitchForm } from "./ChannelsSwitchForm";
import { setChannelsSwitchAction } from "./channels-actions";
import { CreateTenantForm } from "./OperatorForms";

export const metadata: Metadata = { title: "Operator" };

const nf = new Intl.NumberFormat("en");

export default async function OperatorPage() {
  const { db, user } = await requireOperator();
  const month = usageMonth();
  const list = await listTenantsOverview(db.platform, month);
  const mine = await tenantsOfUser(db.platform, user.id);
  const defaultBudget = env().MICHI_DEFAULT_MONTHLY_TOKENS;
  const model = modelStatus();
  const channelsOn = await channelsSwitchedOn(db.platform);
  return (
    <div className="space-y-6">
      <PageHeader
        title="Businesses"
        description={`Every business on this installation. Token use for ${month} (UTC).`}
      />
      {model.configured ? null : (
        <p role="alert" className="card border-danger-600 text-sm">
          <strong>No business can chat yet.</strong> {model.reason}{" "}
          <Link href="/admin/operator/models" className="font-semibold underline">
            Models
          </Link>
        </p>
      )}
      <Card id="tenants">
        <table className="w-full text-left text-sm">
          <caption className="sr-only">Businesses</caption>
          <thead>
            <tr className="border-b border-[var(--border)]">
              <th scope="col" className="py-2 pr-3">
                Name
              </th>
              <th scope="col" className="py-2 pr-3">
                Slug
              </th>
              <th scope="col" className="py-2 pr-3">
                Status
              </th>
              <th scope="col" className="py-2 pr-3 text-right">
                Members
              </th>
              <th scope="col" className="py-2 text-right">
                Tokens this month
              </th>
            </tr>
          </thead>
          <tbody>
            {list.map((t) => {
              const budget = t.monthlyTokenBudget ?? defaultBudget;
              return (
                <tr key={t.id} className="border-b border-[var(--border)]">
                  <td className="py-2 pr-3">
                    <Link href={`/admin/operator/${t.id}`} className="font-medium underline">
                      {t.name}
                    </Link>
                  </td>
                  <td className="py-2 pr-3 font-mono">{t.slug}</td>
                  <td className="py-2 pr-3">
                    {t.status === "suspended" ? (
                      <strong className="text-danger-600">suspended</strong>
                    ) : (
                      "active"
                    )}
                  </td>
                  <td className="py-2 pr-3 text-right">
                    {t.members}
                    {t.invited > 0 ? <span className="muted"> · {t.invited} invited</span> : null}
                  </td>
                  <td className="py-2 text-right">
                    {nf.format(t.tokensThisMonth)}
                    <span className="muted"> / {budget > 0 ? nf.format(budget) : "no budget"}</span>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </Card>
      <Card
        id="mine"
        title="Your businesses"
        description="Businesses whose team you are on, to open their admin."
      >
        {mine.length === 0 ? (
          <p className="text-sm muted">You are not on the team of any business.</p>
        ) : (
          <ul className="flex flex-wrap gap-2">
            {mine.map((t) => (
              <li key={t.slug}>
                <Link href={`/admin/${t.slug}`} className="btn btn-secondary">
                  Open {t.name}
                </Link>
              </li>
            ))}
          </ul>
        )}
      </Card>
      <Card
        id="create"
        title="Create a business"
        description="An owner who already has an account is made its owner. Anyone else is e-mailed an invitation link that sets their password and opens the business; when mail is off, an account is made with a one-time password for you to hand over."
      >
        <CreateTenantForm action={createTenantAction} />
      </Card>
      <Card
        id="channels"
        title="Channels"
        description="WhatsApp and Telegram for every business. Switched off, their webhooks still answer the providers (so nothing piles up in retries) but no message is stored or answered."
      >
        <ChannelsSwitchForm action={setChannelsSwitchAction} enabled={channelsOn} />
      </Card>
    </div>
  );
}
