import { TranscriptMessage } from "@/components/transcript/TranscriptMessage";
import { TranscriptView } from "@/components/transcript/TranscriptView";
import { Card, VerifiedVisitor } from "@/components/ui";
import { MemberAvatar } from "@/components/ui/MemberAvatar";
import { When } from "@/components/ui/When";
import type { PlainActionFn } from "@/lib/auth/action";
import type { LiveConsole } from "@/lib/live/console";
import { AGENT_REPLY_MAX, NOTE_MAX } from "@/lib/live/reply";
import { CHANNEL_WORDS } from "@/shared/channels";
import { ToolTrace } from "../../conversations/[id]/ToolTrace";
import { agentPhoto, STATE_TEXT } from "./console-words";
import { AssignForm, ConversationButton, NoteBox, ReplyBox } from "./LiveForms";

/** The console's server actions, bound to the business. */
export type ConsoleActions = Record<
  "claim" | "assign" | "handBack" | "close" | "reply" | "note",
  PlainActionFn
>;

type Props = {
  data: LiveConsole & { transcript: NonNullable<LiveConsole["transcript"]> };
  tenantSlug: string;
  timeZone: string;
  userId: string;
  /** Null for a viewer: they watch, they do not answer. */
  actions: ConsoleActions | null;
};

/** The open conversation: who has it, what a person may do with it, the transcript, notes, reply. */
export function LiveConversation({ data, tenantSlug, timeZone, userId, actions }: Props) {
  const c = data.transcript.conversation;
  const state = c.liveState;
  const mine = c.liveAgentId === userId;
  const withPerson = state === "waiting" || state === "person";
  return (
    <section aria-labelledby="live-title" className="space-y-4">
      <h2 id="live-title" className="flex items-center gap-2 text-lg font-semibold">
        {withPerson ? STATE_TEXT[state] : "With the bot"}
        {data.item?.agentName ? (
          <>
            {": "}
            <MemberAvatar name={data.item.agentName} src={agentPhoto(tenantSlug, data.item)} size={28} />
            {data.item.agentName}
          </>
        ) : null}
      </h2>
      <VerifiedVisitor visitor={c.verifiedVisitor} />
      <p className="text-sm muted" data-channel={c.channel}>
        {CHANNEL_WORDS[c.channel].whereReplies}
        {CHANNEL_WORDS[c.channel].replyWindow ? ` ${CHANNEL_WORDS[c.channel].replyWindow}` : ""}
      </p>
      {actions && withPerson ? (
        <div className="flex flex-wrap items-center gap-3">
          {state === "waiting" || !mine ? (
            <ConversationButton
              conversationId={c.id}
              action={actions.claim}
              label="Claim"
              pendingText="Claiming…"
              disabled={state === "person"}
            />
          ) : null}
          <AssignForm
            conversationId={c.id}
            action={actions.assign}
            teammates={data.team.map((m) => ({ id: m.userId, name: m.name || m.email }))}
          />
          <ConversationButton
            conversationId={c.id}
            action={actions.handBack}
            label="Hand back to the bot"
            pendingText="Handing back…"
            variant="secondary"
          />
          <ConversationButton
            conversationId={c.id}
            action={actions.close}
            label="End the chat"
            pendingText="Ending…"
            variant="secondary"
          />
        </div>
      ) : null}
      <LiveTranscript entries={data.entries} timeZone={timeZone} />
      {data.notes.length > 0 ? (
        <Card id="notes" title="Internal notes">
          <ol className="space-y-2">
            {data.notes.map((n) => (
              <li key={n.seq} className="text-sm">
                <span className="font-semibold">{n.author}</span> <When at={n.at} tz={timeZone} />
                <p className="whitespace-pre-wrap">{n.text}</p>
              </li>
            ))}
          </ol>
        </Card>
      ) : null}
      {actions && (state === "waiting" || (state === "person" && mine)) ? (
        <ReplyBox
          conversationId={c.id}
          action={actions.reply}
          savedReplies={data.settings.savedReplies}
          maxLength={AGENT_REPLY_MAX}
        />
      ) : null}
      {actions ? <NoteBox conversationId={c.id} action={actions.note} maxLength={NOTE_MAX} /> : null}
    </section>
  );
}

function LiveTranscript({ entries, timeZone }: { entries: LiveConsole["entries"]; timeZone: string }) {
  return (
    <TranscriptView titleId="live-title">
      <ol className="flex flex-col gap-3" aria-label="Transcript">
        {entries.map((entry) => (
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
                tz={timeZone}
              />
            )}
          </li>
        ))}
      </ol>
    </TranscriptView>
  );
}
