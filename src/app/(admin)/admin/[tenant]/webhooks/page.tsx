import type { Metadata } from "next";
import Link from "next/link";
import { Card, PageHeader } from "@/components/ui";
import { requireTenant, roleAtLeast } from "@/lib/auth/guard";
import { listEndpoints } from "@/lib/db/queries/webhooks";
import { EVENT_LABELS, WEBHOOK_EVENT_TYPES } from "@/lib/webhooks/events";
import { createEndpointAction } from "./actions";
import { AddEndpointForm, AdminsOnly } from "./WebhookForms";

export const metadata: Metadata = { title: "Webhooks" };

const EVENT_OPTIONS = WEBHOOK_EVENT_TYPES.map((value) => ({ value, label: EVENT_LABELS[value] }));

export default async function WebhooksPage({ params }: { params: Promise<{ tenant: string }> }) {
  const { tenant: slug } = await params;
  const ctx = await requireTenant(slug);
  if (!roleAtLeast(ctx.role, "admin")) return <AdminsOnly />;
  const endpoints = await ctx.db.forTenant(ctx.tenant.id, (tx) => listEndpoints(tx));
  const s = ctx.tenant.slug;
  return (
    <div className="max-w-4xl space-y-6">
      <PageHeader
        title="Webhooks"
        description="Send new leads, answer ratings and finished conversations to the tools you already use (Zapier, Make, your CRM). Every request is signed so the receiver can check it came from us."
      />
      <Card id="endpoints" title="Endpoints">
        {endpoints.length === 0 ? (
          <p className="text-sm muted">No endpoints yet.</p>
        ) : (
          <table className="w-full text-left text-sm">
            <caption className="sr-only">Webhook endpoints</caption>
            <thead>
              <tr className="border-b border-[var(--border)]">
                <th scope="col" className="py-2 pr-3">
                  Endpoint
                </th>
                <th scope="col" className="py-2 pr-3">
                  Events
                </th>
                <th scope="col" className="py-2">
                  Status
                </th>
              </tr>
            </thead>
            <tbody>
              {endpoints.map((e) => (
                <tr key={e.id} className="border-b border-[var(--border)] align-top">
                  <td className="py-3 pr-3">
                    <Link href={`/admin/${s}/webhooks/${e.id}`} className="break-all font-medium underline">
                      {e.url}
                    </Link>
                    {e.description ? <div className="muted">{e.description}</div> : null}
                  </td>
                  <td className="py-3 pr-3">
                    {e.events.map((ev) => (
                      <code key={ev} className="mr-2 block">
                        {ev}
                      </code>
                    ))}
                  </td>
                  <td className="py-3">
                    {e.enabled ? "On" : e.disabledReason ? "Switched off by michi-chat" : "Off"}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Card>
      <Card
        id="add-endpoint"
        title="Add an endpoint"
        description="You get a signing secret once; the receiver uses it to verify each request (see the Webhooks guide in the docs)."
      >
        <AddEndpointForm action={createEndpointAction.bind(null, s)} events={EVENT_OPTIONS} />
      </Card>
    </div>
  );
}
