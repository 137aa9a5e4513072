import Link from "next/link";
import { Card, VerifiedVisitor } from "@/components/ui";
import { MemberAvatar } from "@/components/ui/MemberAvatar";
import { When } from "@/components/ui/When";
import type { LiveConsole } from "@/lib/live/console";
import { CHANNEL_WORDS } from "@/shared/channels";
import { agentPhoto, languageName, STATE_TEXT } from "./console-words";

/** The queue: every visitor waiting for or talking with a person, oldest request first. */
export function LiveQueue({
  queue,
  tenantSlug,
  timeZone,
}: {
  queue: LiveConsole["queue"];
  tenantSlug: string;
  timeZone: string;
}) {
  const base = `/admin/${tenantSlug}/inbox/live`;
  return (
    <Card id="queue" title="Queue">
      {queue.length === 0 ? (
        <p className="muted">Nobody is waiting. Visitors who ask for a person appear here by themselves.</p>
      ) : (
        <ol className="space-y-3" aria-label="Live conversations">
          {queue.map((q) => (
            <li key={q.id} data-conversation={q.id}>
              <Link href={`${base}?c=${q.id}`} className="block rounded p-2 hover:bg-[var(--surface-muted)]">
                <span className="block font-semibold">
                  {STATE_TEXT[q.liveState as keyof typeof STATE_TEXT]}
                </span>
                <span className="block text-sm">
                  {q.question ? q.question.slice(0, 120) : "No message yet"}
                </span>
                <span className="block text-xs muted">
                  <span data-channel={q.channel}>{CHANNEL_WORDS[q.channel].label}</span>
                  {" · "}
                  {q.liveRequestedAt ? (
                    <>
                      Asked <When at={q.liveRequestedAt} tz={timeZone} />
                    </>
                  ) : null}
                  {q.locale ? ` · ${languageName(q.locale)}` : ""}
                  {q.agentName ? " · " : " · nobody has it yet"}
                  {q.agentName ? (
                    <span className="inline-flex items-center gap-1 align-middle" data-agent="">
                      <MemberAvatar name={q.agentName} src={agentPhoto(tenantSlug, q)} size={16} />
                      {q.agentName}
                    </span>
                  ) : null}
                </span>
                <VerifiedVisitor visitor={q.verifiedVisitor} />
              </Link>
            </li>
          ))}
        </ol>
      )}
    </Card>
  );
}
