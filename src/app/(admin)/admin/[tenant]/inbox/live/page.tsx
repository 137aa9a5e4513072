import type { Metadata } from "next";
import Link from "next/link";
import { Card, PageHeader } from "@/components/ui";
import type { PlainActionFn, TenantActionFn } from "@/lib/auth/action";
import { requireTenant, roleAtLeast } from "@/lib/auth/guard";
import { PRESENCE_BEAT_MS } from "@/lib/live/availability";
import { loadLiveConsole } from "@/lib/live/console";
import { isUuid } from "@/shared/parse";
import {
  assignAction,
  claimAction,
  closeAction,
  handBackAction,
  liveSettingsAction,
  noteAction,
  presenceAction,
  replyAction,
} from "./actions";
import { LiveConversation } from "./LiveConversation";
import { LiveQueue } from "./LiveQueue";
import { LiveSettingsForm } from "./LiveSettingsForm";
import { LiveWatcher } from "./LiveWatcher";

export const metadata: Metadata = { title: "Live chat" };

export default async function LiveConsolePage({
  params,
  searchParams,
}: {
  params: Promise<{ tenant: string }>;
  searchParams: Promise<{ c?: string }>;
}) {
  const { tenant: slug } = await params;
  const ctx = await requireTenant(slug);
  const { c } = await searchParams;
  const data = await loadLiveConsole(ctx, typeof c === "string" && isUuid(c) ? c : null);
  const canAnswer = roleAtLeast(ctx.role, "admin");
  const bind = (a: TenantActionFn): PlainActionFn => a.bind(null, ctx.tenant.slug);
  const actions = canAnswer
    ? {
        claim: bind(claimAction),
        assign: bind(assignAction),
        handBack: bind(handBackAction),
        close: bind(closeAction),
        reply: bind(replyAction),
        note: bind(noteAction),
      }
    : null;
  const t = data.transcript;
  const hours = data.settings.hours;

  return (
    <div className="max-w-6xl space-y-6">
      <PageHeader
        title="Live chat"
        description="Visitors who asked for a person, oldest first. Answer them here; the bot stays quiet meanwhile."
        actions={
          <Link className="btn btn-secondary" href={`/admin/${ctx.tenant.slug}/inbox`}>
            Contact requests
          </Link>
        }
      />
      <LiveWatcher
        tenantSlug={ctx.tenant.slug}
        after={data.tail}
        heartbeat={bind(presenceAction)}
        beatMs={PRESENCE_BEAT_MS}
        away={data.away}
        canAnswer={canAnswer}
      />
      <div className="grid gap-6 md:grid-cols-[18rem_1fr]">
        <LiveQueue queue={data.queue} tenantSlug={ctx.tenant.slug} timeZone={ctx.tenant.timeZone} />
        {t ? (
          <LiveConversation
            data={{ ...data, transcript: t }}
            tenantSlug={ctx.tenant.slug}
            timeZone={ctx.tenant.timeZone}
            userId={ctx.user.id}
            actions={actions}
          />
        ) : (
          <Card id="empty" title="No conversation open">
            <p className="muted">Pick a visitor in the queue to see the conversation.</p>
          </Card>
        )}
      </div>
      {canAnswer ? (
        <Card id="settings" title="Settings">
          <LiveSettingsForm
            action={bind(liveSettingsAction)}
            values={{
              maxPerAgent: data.settings.maxPerAgent,
              escalateAfterMin: data.settings.escalateAfterMin,
              timeZone: hours?.timeZone ?? "",
              open: Object.values(hours?.days ?? {})[0]?.open ?? "",
              close: Object.values(hours?.days ?? {})[0]?.close ?? "",
              days: Object.keys(hours?.days ?? {}).map(Number),
              savedReplies: data.settings.savedReplies.map((r) => `${r.title} | ${r.text}`).join("\n"),
            }}
          />
        </Card>
      ) : null}
    </div>
  );
}
