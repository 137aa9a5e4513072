import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { TranscriptMessage } from "@/components/transcript/TranscriptMessage";
import { TranscriptView } from "@/components/transcript/TranscriptView";
import { Card, PageHeader, VerifiedVisitor } from "@/components/ui";
import { requireTenant, roleAtLeast } from "@/lib/auth/guard";
import { type AnswerRating, ratingsOfConversation } from "@/lib/db/queries/feedback";
import { getTranscript, type MessageRow, timeline } from "@/lib/db/queries/insights-transcript";
import { type Citation, citationsFrom } from "@/shared/citations";
import { deleteConversationAction } from "../actions";
import { formatNumber, When } from "../display";
import { DeleteConversationForm } from "./DeleteConversationForm";
import { FigureCheckTrace } from "./FigureCheckTrace";
import { RatingNote } from "./RatingNote";
import { ToolTrace } from "./ToolTrace";

export const metadata: Metadata = { title: "Conversation" };

/** The indexed pages an answer cited, as the visitor saw them under it. */
function Sources({ sources }: { sources: Citation[] }) {
  if (sources.length === 0) return null;
  return (
    <ol className="mt-2 text-xs" aria-label="Sources">
      {sources.map((c) => (
        <li key={c.n}>
          {c.url ? (
            <>
              <a href={c.url} target="_blank" rel="noopener noreferrer" className="underline">
                [{c.n}] {c.title || c.url}
              </a>{" "}
              <span className="muted">{new URL(c.url).hostname}</span>
            </>
          ) : (
            <>
              [{c.n}] {c.title} <span className="muted">uploaded document</span>
            </>
          )}
        </li>
      ))}
    </ol>
  );
}

function MessageBubble({
  m,
  rating,
  sources,
  tz,
}: {
  m: MessageRow;
  tz: string;
  rating?: AnswerRating;
  sources: Citation[];
}) {
  return (
    <TranscriptMessage
      id={m.id}
      role={m.role}
      content={m.content}
      createdAt={m.createdAt}
      tz={tz}
      status={m.status}
      reason={m.reason}
      meta={
        m.role === "user" ? undefined : (
          <>
            {m.model ? `${m.model} · ` : ""}
            {formatNumber(m.promptTokens)} prompt + {formatNumber(m.completionTokens)} completion tokens
          </>
        )
      }
      footer={
        <>
          <Sources sources={sources} />
          <FigureCheckTrace check={m.figureCheck} />
          <RatingNote rating={rating} />
        </>
      }
    />
  );
}

export default async function ConversationPage({
  params,
}: {
  params: Promise<{ tenant: string; id: string }>;
}) {
  const { tenant: slug, id } = await params;
  const ctx = await requireTenant(slug);
  const [transcript, ratings] = await ctx.db.forTenant(ctx.tenant.id, async (tx) => [
    await getTranscript(tx, ctx.tenant.id, id),
    await ratingsOfConversation(tx, ctx.tenant.id, id),
  ]);
  // Another tenant's id, a deleted one and a malformed one all look the same.
  if (!transcript) notFound();
  const { conversation: c, totals } = transcript;
  const canDelete = roleAtLeast(ctx.role, "admin");
  const base = `/admin/${ctx.tenant.slug}/conversations`;

  return (
    <div className="max-w-4xl space-y-6">
      <PageHeader
        title="Conversation"
        description={
          <>
            Started <When at={c.startedAt} tz={ctx.tenant.timeZone} />, last activity{" "}
            <When at={c.lastActivityAt} tz={ctx.tenant.timeZone} />.
          </>
        }
        actions={
          <Link className="btn btn-secondary" href={base}>
            All conversations
          </Link>
        }
      />

      <Card id="about" title="About this conversation">
        <dl className="grid gap-x-6 gap-y-2 text-sm sm:grid-cols-[auto_1fr]">
          <dt className="muted">Page</dt>
          <dd className="break-all">{c.pageUrl || c.origin || "unknown"}</dd>
          <dt className="muted">Language</dt>
          <dd>{c.locale || "not given"}</dd>
          <dt className="muted">Visitor</dt>
          <dd className="break-all font-mono text-xs">
            {c.visitorId} <VerifiedVisitor visitor={c.verifiedVisitor} />
          </dd>
          <dt className="muted">Tokens</dt>
          <dd>
            {formatNumber(totals.promptTokens + totals.completionTokens)} ({formatNumber(totals.promptTokens)}{" "}
            prompt + {formatNumber(totals.completionTokens)} completion)
          </dd>
          <dt className="muted">Tool calls</dt>
          <dd>{formatNumber(totals.toolCalls)}</dd>
        </dl>
      </Card>

      <section aria-labelledby="transcript-title" className="space-y-3">
        <h2 id="transcript-title" className="text-lg font-semibold">
          Transcript
        </h2>
        <TranscriptView titleId="transcript-title">
          <ol className="flex flex-col gap-3">
            {timeline(transcript).map((item) => (
              <li
                key={item.kind === "tool" ? `t-${item.run.id}` : `m-${item.message.id}`}
                className="flex flex-col"
              >
                {item.kind === "tool" ? (
                  <ToolTrace run={item.run} />
                ) : (
                  <MessageBubble
                    m={item.message}
                    tz={ctx.tenant.timeZone}
                    rating={ratings.get(item.message.id)}
                    sources={
                      item.message.role === "assistant"
                        ? citationsFrom(
                            item.message.content,
                            transcript.runs.filter((r) => r.messageId === item.message.id),
                          )
                        : []
                    }
                  />
                )}
              </li>
            ))}
          </ol>
        </TranscriptView>
      </section>

      <Card id="delete" title="Delete this conversation">
        {canDelete ? null : (
          <p role="note" className="mb-3 text-sm muted">
            Only an admin or owner can delete conversations. You are a {ctx.role} of this business.
          </p>
        )}
        <DeleteConversationForm
          id={c.id}
          action={deleteConversationAction.bind(null, ctx.tenant.slug)}
          readOnly={!canDelete}
        />
      </Card>
    </div>
  );
}
