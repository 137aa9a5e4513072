import type { Metadata } from "next";
import type { ReactNode } from "react";
import { Card, PageHeader } from "@/components/ui";
import { CopyLink } from "@/components/ui/CopyLink";
import { When } from "@/components/ui/When";
import { requireTenant, roleAtLeast } from "@/lib/auth/guard";
import { type ChannelView, listChannels } from "@/lib/channels/view";
import {
  checkChannelAction,
  connectTelegramAction,
  connectWhatsAppAction,
  disconnectChannelAction,
} from "./actions";
import { ChannelButton, TelegramForm, WhatsAppForm } from "./ChannelForms";

export const metadata: Metadata = { title: "Channels" };

// Each channel's own form to connect it, looked up by the channel (no branch on its name).
const CONNECT_FORMS: Record<ChannelView["channel"], (c: ChannelView, slug: string) => ReactNode> = {
  whatsapp: (c, slug) => (
    <WhatsAppForm
      action={connectWhatsAppAction.bind(null, slug)}
      phoneNumberId={c.phoneNumberId}
      secretsSet={c.secretsSet}
    />
  ),
  telegram: (c, slug) => (
    <TelegramForm action={connectTelegramAction.bind(null, slug)} connected={c.connected} />
  ),
};
const STATUS_WORDS: Record<string, string> = {
  queued: "Waiting to send",
  sent: "Sent",
  delivered: "Delivered",
  read: "Read",
  failed: "Failed",
  outside_window: "Not sent: outside WhatsApp's 24-hour window",
};

function Activity({ c, tz }: { c: ChannelView; tz: string }) {
  return (
    <div className="space-y-2 text-sm">
      <p>
        Last message in: {c.lastInboundAt ? <When at={c.lastInboundAt} tz={tz} /> : "none yet"} · Last reply
        out: {c.lastOutboundAt ? <When at={c.lastOutboundAt} tz={tz} /> : "none yet"}
      </p>
      {c.refused ? (
        <p role="note" className="field-error">
          {c.refused.words} (last refused <When at={c.refused.at} tz={tz} />)
        </p>
      ) : null}
      {c.lastError ? (
        <p role="note" className="field-error">
          {c.lastError}
        </p>
      ) : null}
      {c.recent.some((r) => r.errorCode) ? (
        <ul className="muted">
          {c.recent
            .filter((r) => r.errorCode)
            .map((r) => (
              <li key={`${r.at.toISOString()}-${r.errorCode}`}>
                <When at={r.at} tz={tz} />: {STATUS_WORDS[r.status] ?? r.status}
                {r.errorTitle ? ` (${r.errorTitle}, code ${r.errorCode})` : ` (code ${r.errorCode})`}
              </li>
            ))}
        </ul>
      ) : null}
    </div>
  );
}

export default async function ChannelsPage({ params }: { params: Promise<{ tenant: string }> }) {
  const { tenant: slug } = await params;
  const ctx = await requireTenant(slug);
  const admin = roleAtLeast(ctx.role, "admin");
  const { platformOn, channels } = await listChannels(ctx);
  const s = ctx.tenant.slug;
  return (
    <div className="max-w-4xl space-y-6">
      <PageHeader
        title="Channels"
        description="Answer your customers on WhatsApp and Telegram with the same assistant, tools and limits as the chat on your site. Conversations appear under Conversations with their channel."
      />
      {platformOn ? null : (
        <p role="note" className="card text-sm">
          Channels are switched off on this platform by its operator: nothing is answered on them for now.
        </p>
      )}
      {channels.map((c) => (
        <Card key={c.channel} id={c.channel} title={c.title}>
          <div className="space-y-4">
            <p className="text-sm">{c.status}</p>
            {c.actions ? <p className="text-sm muted">{c.actions}</p> : null}
            {c.connected && admin && c.webhookUrl ? (
              <CopyLink link={c.webhookUrl} label={c.webhookLabel ?? ""} />
            ) : null}
            {c.connected && admin && c.webhookUrl?.startsWith("http://") ? (
              // Meta refuses an http callback URL when it is saved there, and Telegram never delivers to one.
              <p role="note" className="field-error text-sm">
                This address starts with http://, and {c.title} only delivers to https addresses, so no
                message will arrive. Ask your platform's operator to serve michi-chat over https; the address
                here changes with it.
              </p>
            ) : null}
            {c.connected ? <Activity c={c} tz={ctx.tenant.timeZone} /> : null}
            {admin ? (
              <>
                {CONNECT_FORMS[c.channel](c, s)}
                {c.connected ? (
                  <div className="flex flex-wrap gap-4">
                    <ChannelButton
                      action={checkChannelAction.bind(null, s)}
                      channel={c.channel}
                      label="Check connection"
                      pendingText="Checking…"
                    />
                    <ChannelButton
                      action={disconnectChannelAction.bind(null, s)}
                      channel={c.channel}
                      label="Disconnect"
                      pendingText="Disconnecting…"
                      variant="danger"
                    />
                  </div>
                ) : null}
              </>
            ) : (
              <p className="text-sm muted">Only owners and admins can connect channels.</p>
            )}
          </div>
        </Card>
      ))}
    </div>
  );
}
