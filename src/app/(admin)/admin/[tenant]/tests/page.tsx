import type { Metadata } from "next";
import Link from "next/link";
import { Card, PageHeader } from "@/components/ui";
import { requireTenant, roleAtLeast } from "@/lib/auth/guard";
import { runHeadline } from "@/lib/test-questions/headline";
import { loadTestQuestionsView } from "@/lib/test-questions/views";
import { When } from "../conversations/display";
import { ActionButton } from "../knowledge/KnowledgeForms";
import { importTestQuestionsAction, runTestQuestionsAction, seedTestQuestionsAction } from "./actions";
import { ImportForm } from "./QuestionForm";
import { QuestionsCard } from "./QuestionsCard";
import { TRIGGER_WORDS } from "./words";

export const metadata: Metadata = { title: "Test questions" };

const SEEDS = [
  { from: "site", label: "From your website", help: "one question per indexed page, which must cite it" },
  { from: "answers", label: "From your answers", help: "each curated answer's question, with its figures" },
  { from: "unanswered", label: "From Unanswered questions", help: "what the bot could not handle lately" },
  {
    from: "rated_down",
    label: "From answers rated down",
    help: "questions whose answer a visitor rated down",
  },
] as const;

export default async function TestQuestionsPage({ params }: { params: Promise<{ tenant: string }> }) {
  const { tenant: slug } = await params;
  const ctx = await requireTenant(slug);
  const view = await loadTestQuestionsView(ctx);
  const canEdit = roleAtLeast(ctx.role, "admin");
  const s = ctx.tenant.slug;
  const base = `/admin/${s}`;
  const tz = ctx.tenant.timeZone;
  const current = view.current;

  return (
    <div className="max-w-5xl space-y-6">
      <PageHeader
        title="Test questions"
        description="Your own questions, each with what a right answer must do. They run again by themselves after a knowledge sync that changed something and after a change of the bot's prompt, model or packs; you get a mail when an answer that passed now fails."
      />
      <Card
        id="runs"
        title="Runs"
        description={
          view.modelConfigured
            ? "Each question goes through the assistant as a visitor's would. Runs use tokens, counted apart from your visitors' usage."
            : "No model is configured, so runs check what the knowledge search finds for each question (its pages and passages)."
        }
      >
        {current ? (
          <p className="text-sm" role="status">
            {current.status === "running" ? "A run is going" : "A run will start shortly"} (
            {current.triggers.map((t) => TRIGGER_WORDS[t]).join(", ")}):{" "}
            <Link className="underline" href={`${base}/tests/runs/${current.id}`}>
              follow it
            </Link>
            .
          </p>
        ) : null}
        {canEdit && view.questions.length > 0 ? (
          <div className="my-2">
            <ActionButton
              action={runTestQuestionsAction.bind(null, s)}
              fields={{}}
              label="Run now"
              pendingText="Starting…"
            />
          </div>
        ) : null}
        {view.runs.length === 0 ? (
          <p className="text-sm muted">No runs yet.</p>
        ) : (
          <ul className="space-y-1 text-sm" aria-label="Recent runs">
            {view.runs.map((r) => (
              <li key={r.id}>
                <Link className="underline" href={`${base}/tests/runs/${r.id}`}>
                  <When at={r.createdAt} tz={tz} />
                </Link>{" "}
                · {r.triggers.map((t) => TRIGGER_WORDS[t]).join(", ")} ·{" "}
                {r.status === "done"
                  ? runHeadline(r, r.capped)
                  : r.status === "failed"
                    ? (r.error ?? "failed")
                    : r.status === "running"
                      ? "running"
                      : "waiting"}
              </li>
            ))}
          </ul>
        )}
      </Card>

      <QuestionsCard view={view} slug={s} canEdit={canEdit} />

      {canEdit ? (
        <Card id="seed" title="Add in one click" description="Questions already in the list are skipped.">
          <ul className="space-y-2 text-sm">
            {SEEDS.map((x) => (
              <li key={x.from} className="flex flex-wrap items-center gap-2">
                <ActionButton
                  action={seedTestQuestionsAction.bind(null, s)}
                  fields={{ from: x.from }}
                  label={x.label}
                  pendingText="Adding…"
                />
                <span className="muted">{x.help}</span>
              </li>
            ))}
          </ul>
        </Card>
      ) : null}

      <Card
        id="csv"
        title="CSV"
        description="One question per row; several words in a cell are separated by “|”."
      >
        <p className="text-sm">
          <a className="underline" href={`/api/admin/${s}/tests/export`}>
            Download the questions as CSV
          </a>
        </p>
        {canEdit ? (
          <div className="mt-3">
            <ImportForm action={importTestQuestionsAction.bind(null, s)} />
          </div>
        ) : null}
      </Card>
    </div>
  );
}
