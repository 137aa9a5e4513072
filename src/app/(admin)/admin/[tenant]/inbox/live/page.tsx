import type { Metadata } from "next";
import Link from "next/link";
import { TranscriptMessage } from "@/components/transcript/TranscriptMessage";
import { TranscriptView } from "@/components/transcript/TranscriptView";
import { Card, PageHeader } from "@/components/ui";
import { MemberAvatar } from "@/components/ui/MemberAvatar";
import { When } from "@/components/ui/When";
import type { PlainActionFn, TenantActionFn } from "@/lib/auth/action";
import { requireTenant, roleAtLeast } from "@/lib/auth/guard";
import { getTranscript, timeline } from "@/lib/db/queries/insights-transcript";
import { listLiveQueue, listNotes } from "@/lib/db/queries/live-conversations";
import { liveTail } from "@/lib/db/queries/live-events";
import { isAway, readLiveSettings } from "@/lib/db/queries/live-presence";
import { listMembers } from "@/lib/db/queries/members";
import { PRESENCE_BEAT_MS } from "@/lib/live/availability";
import { AGENT_REPLY_MAX, NOTE_MAX } from "@/lib/live/reply";
import { isUuid } from "@/shared/parse";
import { ToolTrace } from "../../conversations/[id]/ToolTrace";
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
import { AssignForm, ConversationButton, NoteBox, ReplyBox } from "./LiveForms";
import { LiveSettingsForm } from "./LiveSettingsForm";
import { LiveWatcher } from "./LiveWatcher";

export const metadata: Metadata = { title: "Live chat" };

const STATE_TEXT = { waiting: "Waiting for a person", person: "With a person" } as const;
const CHANNEL_TEXT = { web: "Website chat", whatsapp: "WhatsApp", telegram: "Telegram" } as const;

const LANGUAGES = new Intl.DisplayNames(["en"], { type: "language" });

/** "es-ES" as "Spanish (Spain)": the visitor's browser language in words; an odd tag as it came. */
function languageName(locale: string): string {
  try {
    return LANGUAGES.of(locale) ?? locale;
  } catch {
    return locale;
  }
}

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
  const selectedId = typeof c === "string" && isUuid(c) ? c : null;
  const data = await ctx.db.forTenant(ctx.tenant.id, async (tx) => {
    const queue = await listLiveQueue(tx, ctx.tenant.id);
    const open = selectedId ?? queue[0]?.id ?? null;
    return {
      tail: await liveTail(tx),
      queue,
      away: await isAway(tx, ctx.tenant.id, ctx.user.id),
      settings: await readLiveSettings(tx, ctx.tenant.id),
      team: (await listMembers(tx, ctx.tenant.id)).filter((m) => m.role !== "viewer"),
      transcript: open ? await getTranscript(tx, ctx.tenant.id, open) : null,
      notes: open ? await listNotes(tx, open) : [],
    };
  });
  const canAnswer = roleAtLeast(ctx.role, "admin");
  const base = `/admin/${ctx.tenant.slug}/inbox/live`;
  const bind = (a: TenantActionFn): PlainActionFn => a.bind(null, ctx.tenant.slug);
  const t = data.transcript;
  const item = t ? data.queue.find((q) => q.id === t.conversation.id) : undefined;
  const state = t?.conversation.liveState ?? "bot";
  const mine = t?.conversation.liveAgentId === ctx.user.id;
  // Who has a conversation, with their photo when they set one (the URL names its version).
  const photo = (q: { liveAgentId: string | null; agentAvatar: string | null }) =>
    q.liveAgentId && q.agentAvatar
      ? `/api/admin/${ctx.tenant.slug}/avatars/${q.liveAgentId}?v=${q.agentAvatar}`
      : null;

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
        <Card id="queue" title="Queue">
          {data.queue.length === 0 ? (
            <p className="muted">
              Nobody is waiting. Visitors who ask for a person appear here by themselves.
            </p>
          ) : (
            <ol className="space-y-3" aria-label="Live conversations">
              {data.queue.map((q) => (
                <li key={q.id} data-conversation={q.id}>
                  <Link
                    href={`${base}?c=${q.id}`}
                    className="block rounded p-2 hover:bg-[var(--surface-muted)]"
                  >
                    <span className="block font-semibold">
                      {STATE_TEXT[q.liveState as keyof typeof STATE_TEXT]}
                    </span>
                    <span className="block text-sm">
                      {q.question ? q.question.slice(0, 120) : "No message yet"}
                    </span>
                    <span className="block text-xs muted">
                      <span data-channel={q.channel}>{CHANNEL_TEXT[q.channel]}</span>
                      {" · "}
                      {q.liveRequestedAt ? (
                        <>
                          Asked <When at={q.liveRequestedAt} tz={ctx.tenant.timeZone} />
                        </>
                      ) : null}
                      {q.locale ? ` · ${languageName(q.locale)}` : ""}
                      {q.agentName ? " · " : " · nobody has it yet"}
                      {q.agentName ? (
                        <span className="inline-flex items-center gap-1 align-middle" data-agent="">
                          <MemberAvatar name={q.agentName} src={photo(q)} size={16} />
                          {q.agentName}
                        </span>
                      ) : null}
                    </span>
                  </Link>
                </li>
              ))}
            </ol>
          )}
        </Card>

        {t ? (
          <section aria-labelledby="live-title" className="space-y-4">
            <h2 id="live-title" className="flex items-center gap-2 text-lg font-semibold">
              {state === "waiting" || state === "person" ? STATE_TEXT[state] : "With the bot"}
              {item?.agentName ? (
                <>
                  {": "}
                  <MemberAvatar name={item.agentName} src={photo(item)} size={28} />
                  {item.agentName}
                </>
              ) : null}
            </h2>
            <p className="text-sm muted" data-channel={t.conversation.channel}>
              {t.conversation.channel === "web"
                ? "On the website chat."
                : `On ${CHANNEL_TEXT[t.conversation.channel]}: your replies are sent there, the visitor's messages arrive here.`}
              {t.conversation.channel === "whatsapp"
                ? " WhatsApp delivers replies only within 24 hours of the person's last message."
                : ""}
            </p>
            {canAnswer ? (
              <div className="flex flex-wrap items-center gap-3">
                {state === "waiting" || (state === "person" && !mine) ? (
                  <ConversationButton
                    conversationId={t.conversation.id}
                    action={bind(claimAction)}
                    label="Claim"
                    pendingText="Claiming…"
                    disabled={state === "person"}
                  />
                ) : null}
                {state === "waiting" || state === "person" ? (
                  <>
                    <AssignForm
                      conversationId={t.conversation.id}
                      action={bind(assignAction)}
                      teammates={data.team.map((m) => ({ id: m.userId, name: m.name || m.email }))}
                    />
                    <ConversationButton
                      conversationId={t.conversation.id}
                      action={bind(handBackAction)}
                      label="Hand back to the bot"
                      pendingText="Handing back…"
                      variant="secondary"
                    />
                    <ConversationButton
                      conversationId={t.conversation.id}
                      action={bind(closeAction)}
                      label="End the chat"
                      pendingText="Ending…"
                      variant="secondary"
                    />
                  </>
                ) : null}
              </div>
            ) : null}
            <TranscriptView titleId="live-title">
              <ol className="flex flex-col gap-3" aria-label="Transcript">
                {timeline(t).map((entry) => (
                  <li
                    key={entry.kind === "tool" ? `t-${entry.run.id}` : `m-${entry.message.id}`}
                    className="flex flex-col"
                  >
                    {entry.kind === "tool" ? (
                      <ToolTrace run={entry.run} />
                    ) : (
                      <TranscriptMessage
                        id={entry.message.id}
                        role={entry.message.role}
                        content={entry.message.content}
                        createdAt={entry.message.createdAt}
                        status={entry.message.status}
                        reason={entry.message.reason}
                        tz={ctx.tenant.timeZone}
                      />
                    )}
                  </li>
                ))}
              </ol>
            </TranscriptView>
            {data.notes.length > 0 ? (
              <Card id="notes" title="Internal notes">
                <ol className="space-y-2">
                  {data.notes.map((n) => (
                    <li key={n.seq} className="text-sm">
                      <span className="font-semibold">{n.author}</span>{" "}
                      <When at={n.at} tz={ctx.tenant.timeZone} />
                      <p className="whitespace-pre-wrap">{n.text}</p>
                    </li>
                  ))}
                </ol>
              </Card>
            ) : null}
            {canAnswer && (state === "waiting" || (state === "person" && mine)) ? (
              <ReplyBox
                conversationId={t.conversation.id}
                action={bind(replyAction)}
                savedReplies={data.settings.savedReplies}
                maxLength={AGENT_REPLY_MAX}
              />
            ) : null}
            {canAnswer ? (
              <NoteBox conversationId={t.conversation.id} action={bind(noteAction)} maxLength={NOTE_MAX} />
            ) : null}
          </section>
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
              timeZone: data.settings.hours?.timeZone ?? "",
              open: Object.values(data.settings.hours?.days ?? {})[0]?.open ?? "",
              close: Object.values(data.settings.hours?.days ?? {})[0]?.close ?? "",
              days: Object.keys(data.settings.hours?.days ?? {}).map(Number),
              savedReplies: data.settings.savedReplies.map((r) => `${r.title} | ${r.text}`).join("\n"),
            }}
          />
        </Card>
      ) : null}
    </div>
  );
}
