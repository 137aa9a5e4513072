import type { Metadata } from "next";
import Link from "next/link";
import { Card, PageHeader } from "@/components/ui";
import { requireTenant, roleAtLeast } from "@/lib/auth/guard";
import { REPORT_DAYS, unansweredReport } from "@/lib/insights/unanswered";
import { formatNumber, When } from "../conversations/display";
import { markUnansweredAction } from "./actions";
import { MarkHandledForm } from "./MarkHandledForm";

export const metadata: Metadata = { title: "Unanswered questions" };

const WHY_LABEL = {
  failed: "failed",
  outage: "the model server failed",
  round_cap: "too many tool rounds",
  empty: "empty answer",
  rated_down: "rated down",
  handoff: "ended in a hand-off",
  not_found: "not found on your website",
} as const;

export default async function UnansweredPage({ params }: { params: Promise<{ tenant: string }> }) {
  const { tenant: slug } = await params;
  const ctx = await requireTenant(slug);
  const all = await ctx.db.forTenant(ctx.tenant.id, (tx) => unansweredReport(tx, ctx.tenant.id));
  // Questions that only met a model outage are listed apart: no answer written or pack switched on would help.
  const outageOnly = (g: (typeof all)[number]) => g.why.every((w) => w === "outage");
  const groups = all.filter((g) => !outageOnly(g));
  const outages = all.filter(outageOnly);
  const base = `/admin/${ctx.tenant.slug}`;
  const canEdit = roleAtLeast(ctx.role, "admin");
  const action = markUnansweredAction.bind(null, ctx.tenant.slug);
  const tz = ctx.tenant.timeZone;

  return (
    <div className="max-w-5xl space-y-6">
      <PageHeader
        title="Unanswered questions"
        description={`Questions of the last ${REPORT_DAYS} days the bot did not handle: failed or empty answers, too many tool rounds, answers rated down, and turns that ended in a hand-off. Near-identical questions are grouped; the most asked come first.`}
      />
      {groups.length === 0 ? (
        <Card id="none">
          <p className="muted">Nothing to improve right now: every recent question got an answer.</p>
        </Card>
      ) : (
        <ol className="space-y-4" aria-label="Groups of unanswered questions">
          {groups.map((g) => (
            <li key={g.questionIds[0]} className="card space-y-2">
              <h2 className="font-semibold break-words">“{g.question}”</h2>
              <p className="text-sm">
                Asked <strong>{formatNumber(g.count)}</strong> {g.count === 1 ? "time" : "times"}, latest{" "}
                <When at={g.latest} tz={tz} /> · {g.why.map((w) => WHY_LABEL[w]).join(", ")}
              </p>
              {g.suggestion ? (
                <p className="text-sm">
                  The <strong>{g.suggestion.label}</strong> pack ({g.suggestion.packId}) might answer this:{" "}
                  <Link className="underline" href={`${base}/tools`}>
                    switch it on in Tools
                  </Link>
                  .
                </p>
              ) : null}
              <p className="text-sm">
                Conversations:{" "}
                {g.conversations.map((id, i) => (
                  <span key={id}>
                    {i > 0 ? ", " : ""}
                    <Link className="underline" href={`${base}/conversations/${id}`}>
                      #{i + 1}
                    </Link>
                  </span>
                ))}
              </p>
              {canEdit ? (
                <p className="text-sm">
                  <Link
                    className="underline"
                    href={`${base}/knowledge?${new URLSearchParams({ question: g.question.slice(0, 200) })}#answers`}
                  >
                    Write the answer
                  </Link>
                  <span className="muted"> · the assistant gives it word for word from then on</span>
                </p>
              ) : null}
              <MarkHandledForm questionIds={g.questionIds} action={action} readOnly={!canEdit} />
            </li>
          ))}
        </ol>
      )}
      {outages.length > 0 ? (
        <Card
          id="outages"
          title="When the assistant could not answer at all"
          description="These questions met a failure of the model server (an error, a timeout, a cut connection), not a gap in what the bot knows. Questions the visitor then retried into an answer are not listed."
        >
          <ul className="space-y-2 text-sm">
            {outages.map((g) => (
              <li key={g.questionIds[0]}>
                “{g.question}” · {formatNumber(g.count)} {g.count === 1 ? "time" : "times"}, latest{" "}
                <When at={g.latest} tz={tz} /> ·{" "}
                <Link className="underline" href={`${base}/conversations/${g.conversations[0]}`}>
                  open the transcript
                </Link>
              </li>
            ))}
          </ul>
        </Card>
      ) : null}
    </div>
  );
}
