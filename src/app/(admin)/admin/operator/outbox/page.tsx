import type { Metadata } from "next";
import { connection } from "next/server";
import { Card, PageHeader } from "@/components/ui";
import { When } from "@/components/ui/When";
import { requireOperator } from "@/lib/auth/guard";
import { listOutbox } from "@/lib/db/queries/outbox";
import { env } from "@/lib/env";
import { mailDelivery, smtpServerLabel } from "@/lib/mail/send";
import { MailText } from "./MailText";

export const metadata: Metadata = { title: "Outbox (operator)" };

const STATUS_WORDS = {
  sent: "sent",
  kept: "kept here (no SMTP)",
  off: "not sent (mail is off)",
  failed: "failed",
} as const;

function deliveryText(): string {
  const delivery = mailDelivery();
  if (delivery === "smtp")
    return `Mail is sent through ${smtpServerLabel()}. Sent mails are listed without their text: their links are secrets.`;
  if (delivery === "outbox")
    return "No mail server is configured (MICHI_SMTP_URL), so nothing leaves this installation: every mail is kept here in full, for you to read or pass on. Set MICHI_SMTP_URL to send them.";
  return "Mail is off: no mail server is configured (MICHI_SMTP_URL) and the Outbox is switched off, so mails are dropped. Invitation links are still shown to the owner who creates them.";
}

// Platform data across businesses, so it reads through db.platform; only the operator gets here.
export default async function OutboxPage() {
  await connection(); // per request, never prerendered at build time
  const { db } = await requireOperator();
  const mails = await listOutbox(db.platform, 50);
  const origin = new URL(env().MICHI_PUBLIC_URL).origin;
  return (
    <div className="space-y-6">
      <PageHeader title="Outbox" description={deliveryText()} />
      <Card id="mails" title="Latest mails">
        {mails.length === 0 ? (
          <p className="muted">No mail yet.</p>
        ) : (
          <ol className="space-y-4">
            {mails.map((m) => (
              <li key={m.id} className="border-b border-[var(--border)] pb-4">
                <article aria-label={`Mail to ${m.toAddress}: ${m.subject}`}>
                  <h2 className="font-semibold">{m.subject}</h2>
                  <dl className="mt-1 grid grid-cols-[auto_1fr] gap-x-3 text-sm">
                    <dt className="muted">To</dt>
                    <dd>{m.toAddress}</dd>
                    <dt className="muted">When</dt>
                    <dd>
                      <When at={m.createdAt} tz={m.tenantTimeZone ?? "UTC"} />
                    </dd>
                    <dt className="muted">Kind</dt>
                    <dd>
                      {m.kind}
                      {m.tenantName ? ` (${m.tenantName})` : ""}
                    </dd>
                    <dt className="muted">Status</dt>
                    <dd>
                      {STATUS_WORDS[m.status]}
                      {m.error ? `: ${m.error}` : ""}
                    </dd>
                  </dl>
                  {m.bodyText ? <MailText text={m.bodyText} kind={m.kind} origin={origin} /> : null}
                </article>
              </li>
            ))}
          </ol>
        )}
      </Card>
    </div>
  );
}
