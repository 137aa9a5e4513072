import { Card } from "@/components/ui";
import { When } from "@/components/ui/When";
import type { PlainActionFn } from "@/lib/auth/action";
import type { EndpointView } from "@/lib/webhooks/views";
import { formatDateTime } from "@/shared/dates";
import { IdButton } from "../WebhookForms";

const STATUS_LABEL = {
  pending: "Waiting",
  retrying: "Retrying",
  delivered: "Delivered",
  failed: "Failed",
} as const;

/** An endpoint's latest deliveries, each with a button to send it again. */
export function DeliveriesCard({
  deliveries,
  redeliver,
  tz,
}: {
  deliveries: EndpointView["deliveries"];
  redeliver: PlainActionFn;
  /** The business's time zone. */
  tz: string;
}) {
  return (
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
                    <When at={d.createdAt} tz={tz} seconds />
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
                    action={redeliver}
                    name="deliveryId"
                    value={d.id}
                    label="Redeliver"
                    pendingText="Queuing…"
                    ariaLabel={`Redeliver ${d.eventType} of ${formatDateTime(d.createdAt, { seconds: true, tz })}`}
                  />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Card>
  );
}
