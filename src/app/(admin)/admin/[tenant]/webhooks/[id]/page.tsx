import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { Card, PageHeader } from "@/components/ui";
import { requireTenant, roleAtLeast } from "@/lib/auth/guard";
import { getEndpoint, listDeliveries } from "@/lib/db/queries/webhooks";
import { EVENT_LABELS, WEBHOOK_EVENT_TYPES } from "@/lib/webhooks/events";
import { isUuid } from "@/shared/parse";
import {
  deleteEndpointAction,
  redeliverAction,
  rollSecretAction,
  sendTestEventAction,
  setEndpointEnabledAction,
  updateEndpointAction,
} from "../actions";
import { AdminsOnly, EditEndpointForm, IdButton } from "../WebhookForms";

export const metadata: Metadata = { title: "Webhook endpoint" };

const EVENT_OPTIONS = WEBHOOK_EVENT_TYPES.map((value) => ({ value, label: EVENT_LABELS[value] }));

const STATUS_LABEL = {
  pending: "Waiting",
  retrying: "Retrying",
  delivered: "Delivered",
  failed: "Failed",
} as const;

export default async function EndpointPage({ params }: { params: Promise<{ tenant: string; id: string }> }) {
  const { tenant: slug, id } = await params;
  const ctx = await requireTenant(slug);
  if (!roleAtLeast(ctx.role, "admin")) return <AdminsOnly />;
  if (!isUuid(id)) notFound();
  const found = await ctx.db.forTenant(ctx.tenant.id, async (tx) => {
    const endpoint = await getEndpoint(tx, id);
    return endpoint ? { endpoint, deliveries: await listDeliveries(tx, id) } : null;
  });
  if (!found) notFound();
  const { endpoint, deliveries } = found;
  const s = ctx.tenant.slug;
  return (
    <div className="max-w-4xl space-y-6">
      <PageHeader title="Webhook endpoint" description={endpoint.url} />
      <p>
        <Link href={`/admin/${s}/webhooks`} className="text-sm underline">
          All endpoints
        </Link>
      </p>
      {endpoint.disabledReason ? (
        <p role="alert" className="card border-danger-600 text-sm">
          {endpoint.disabledReason} Fix the receiver, switch the endpoint on, then redeliver what it missed.
        </p>
      ) : null}
      <Card id="status" title={endpoint.enabled ? "On" : "Off"}>
        <div className="flex flex-wrap gap-3">
          <IdButton
            action={setEndpointEnabledAction.bind(null, s)}
            name="endpointId"
            value={endpoint.id}
            extra={{ enabled: endpoint.enabled ? "false" : "true" }}
            label={endpoint.enabled ? "Switch off" : "Switch on"}
            pendingText="Saving…"
          />
          {endpoint.enabled ? (
            <IdButton
              action={sendTestEventAction.bind(null, s)}
              name="endpointId"
              value={endpoint.id}
              label="Send test event"
              pendingText="Sending…"
            />
          ) : null}
          <IdButton
            action={rollSecretAction.bind(null, s)}
            name="endpointId"
            value={endpoint.id}
            label="Roll signing secret"
            pendingText="Rolling…"
          />
          <IdButton
            action={deleteEndpointAction.bind(null, s)}
            name="endpointId"
            value={endpoint.id}
            label="Delete endpoint"
            pendingText="Deleting…"
            variant="danger"
          />
        </div>
      </Card>
      <Card id="settings" title="Settings">
        <EditEndpointForm
          action={updateEndpointAction.bind(null, s)}
          events={EVENT_OPTIONS}
          endpoint={{
            id: endpoint.id,
            url: endpoint.url,
            description: endpoint.description,
            events: endpoint.events,
          }}
        />
      </Card>
      <Card id="deliveries" title="Deliveries" description="The latest 50, newest first.">
        {deliveries.length === 0 ? (
          <p className="text-sm muted">Nothing sent yet.</p>
        ) : (
          <table className="w-full text-left text-sm">
            <caption className="sr-only">Deliveries to this endpoint</caption>
            <thead>
              <tr className="border-b border-[var(--border)]">
                <th scope="col" className="py-2 pr-3">
                  Event
                </th>
                <th scope="col" className="py-2 pr-3">
                  Status
                </th>
                <th scope="col" className="py-2 pr-3">
                  Attempts
                </th>
                <th scope="col" className="py-2 pr-3">
                  Last answer
                </th>
                <th scope="col" className="py-2">
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {deliveries.map((d) => (
                <tr
                  key={d.id}
                  className="border-b border-[var(--border)] align-top"
                  data-delivery={d.messageId}
                >
                  <td className="py-3 pr-3">
                    <code>{d.eventType}</code>
                    <div className="text-xs muted">
                      {d.createdAt.toISOString().replace("T", " ").slice(0, 19)}
                    </div>
                  </td>
                  <td className="py-3 pr-3">{STATUS_LABEL[d.status]}</td>
                  <td className="py-3 pr-3">{d.attempts}</td>
                  <td className="py-3 pr-3">
                    {d.lastStatusCode ? `HTTP ${d.lastStatusCode}` : d.lastError ? "No answer" : "–"}
                    {d.lastError ? <div className="text-xs muted">{d.lastError}</div> : null}
                  </td>
                  <td className="py-3">
                    <IdButton
                      action={redeliverAction.bind(null, s)}
                      name="deliveryId"
                      value={d.id}
                      label="Redeliver"
                      pendingText="Queuing…"
                      ariaLabel={`Redeliver ${d.eventType} of ${d.createdAt.toISOString()}`}
                    />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Card>
    </div>
  );
}
