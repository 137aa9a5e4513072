import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { Card, PageHeader } from "@/components/ui";
import { requireTenant } from "@/lib/auth/guard";
import { runHeadline } from "@/lib/test-questions/headline";
import { loadTestRunView } from "@/lib/test-questions/views";
import { When } from "../../../conversations/display";
import { TRIGGER_WORDS } from "../../words";

export const metadata: Metadata = { title: "Test run" };

const CHANGE_WORDS = { answer: "answer text", citations: "cited pages", verdict: "pass/fail" } as const;

export default async function TestRunPage({ params }: { params: Promise<{ tenant: string; id: string }> }) {
  const { tenant: slug, id } = await params;
  const ctx = await requireTenant(slug);
  const view = await loadTestRunView(ctx, id);
  if (!view) notFound();
  const { run, results } = view;
  const tz = ctx.tenant.timeZone;
  const headline =
    run.status === "done"
      ? runHeadline(run, run.capped)
      : run.status === "failed"
        ? (run.error ?? "The run failed.")
        : run.status === "running"
          ? `Running: ${results.length} of ${run.total} answered so far`
          : "Waiting to start";
  return (
    <div className="max-w-5xl space-y-6">
      {/* Until the run ends, the page reads it again every few seconds (as the Knowledge page does a sync). */}
      {run.status === "running" || run.status === "pending" ? <meta httpEquiv="refresh" content="3" /> : null}
      <PageHeader title={headline} description="A run of your test questions." />
      <p className="text-sm">
        <Link className="underline" href={`/admin/${ctx.tenant.slug}/tests`}>
          All test questions
        </Link>{" "}
        · started <When at={run.startedAt ?? run.createdAt} tz={tz} /> by{" "}
        {run.triggers.map((t) => TRIGGER_WORDS[t]).join(", ")} ·{" "}
        {run.mode === "retrieval" ? "knowledge search alone (no model)" : `${run.tokens} tokens`} ·{" "}
        {run.passed} passed, {run.failed} failed
      </p>
      <ol className="space-y-3" aria-label="Results">
        {results.map((r) => (
          <li key={r.id}>
            <Card id={`result-${r.id}`} title={`“${r.question}”`}>
              <p className="text-sm">
                <strong>{r.pass ? "Passes" : r.wasPass ? "Now fails" : "Fails"}</strong>
                {r.changes.length ? ` · changed: ${r.changes.map((c) => CHANGE_WORDS[c]).join(", ")}` : ""}
              </p>
              {r.reasons.length ? (
                <ul className="list-disc pl-5 text-sm">
                  {r.reasons.map((x) => (
                    <li key={x}>{x}</li>
                  ))}
                </ul>
              ) : null}
              <blockquote className="mt-2 whitespace-pre-wrap border-l-2 border-[var(--border)] pl-3 text-sm">
                {r.answer || "(no answer)"}
              </blockquote>
              {r.citations.length ? (
                <p className="mt-1 text-sm">
                  Cited:{" "}
                  {r.citations.map((c, i) => (
                    <span key={`${c.n}-${c.title}`}>
                      {i > 0 ? ", " : ""}
                      {c.url ? (
                        <a className="underline" href={c.url} rel="noreferrer" target="_blank">
                          {c.title || c.url}
                        </a>
                      ) : (
                        c.title
                      )}
                    </span>
                  ))}
                </p>
              ) : null}
            </Card>
          </li>
        ))}
      </ol>
    </div>
  );
}
