import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { Card, PageHeader } from "@/components/ui";
import { requireTenant, roleAtLeast } from "@/lib/auth/guard";
import { EVENT_LABELS, WEBHOOK_EVENT_TYPES } from "@/lib/webhooks/events";
import { loadEndpoint } from "@/lib/webhooks/views";
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
import { DeliveriesCard } from "./DeliveriesCard";

export const metadata: Metadata = { title: "Webhook endpoint" };

const EVENT_OPTIONS = WEBHOOK_EVENT_TYPES.map((value) => ({ value, label: EVENT_LABELS[value] }));

export default async function EndpointPage({ params }: { params: Promise<{ tenant: string; id: string }> }) {
  const { tenant: slug, id } = await params;
  const ctx = await requireTenant(slug);
  if (!roleAtLeast(ctx.role, "admin")) return <AdminsOnly />;
  if (!isUuid(id)) notFound();
  const found = await loadEndpoint(ctx, id);
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
      <DeliveriesCard
        deliveries={deliveries}
        redeliver={redeliverAction.bind(null, s)}
        tz={ctx.tenant.timeZone}
      />
    </div>
  );
}
