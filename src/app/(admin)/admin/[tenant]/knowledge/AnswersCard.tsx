import { Card } from "@/components/ui";
import type { loadKnowledgeView } from "@/lib/knowledge/views";
import { addAnswerAction, deleteAnswerAction, updateAnswerAction } from "./actions";
import { ActionButton, AnswerForm } from "./KnowledgeForms";

type KnowledgeView = Awaited<ReturnType<typeof loadKnowledgeView>>;

/** The answers the business wrote, each editable, and the form for a new one. */
export function AnswersCard({
  view,
  slug: s,
  canEdit,
  question,
}: {
  view: KnowledgeView;
  slug: string;
  canEdit: boolean;
  question: string;
}) {
  return (
    <Card
      id="answers"
      title="Your answers"
      description="Written by you; when a visitor asks one of these questions, the assistant gets your answer first."
    >
      {view.answers.length === 0 ? (
        <p className="text-sm muted">No answers yet.</p>
      ) : (
        <ul className="space-y-3 text-sm">
          {view.answers.map((a) => (
            <li key={a.id} className="rounded border border-[var(--border)] p-2">
              <p className="font-medium">{a.questions.join(" · ")}</p>
              <p>{a.answer}</p>
              {canEdit ? (
                <details className="mt-2">
                  <summary className="cursor-pointer text-sm underline">
                    Edit<span className="sr-only"> the answer to {a.questions[0]}</span>
                  </summary>
                  <div className="mt-2">
                    <AnswerForm
                      action={updateAnswerAction.bind(null, s)}
                      idPrefix={`answer-${a.id}`}
                      answerId={a.id}
                      initial={{ questions: a.questions.join("\n"), answer: a.answer, lang: a.lang }}
                      submitLabel="Save changes"
                    />
                  </div>
                </details>
              ) : null}
              {canEdit ? (
                <ActionButton
                  action={deleteAnswerAction.bind(null, s)}
                  fields={{ answerId: a.id }}
                  label="Delete"
                  pendingText="Deleting…"
                  variant="danger"
                  ariaLabel={`Delete the answer to ${a.questions[0]}`}
                />
              ) : null}
            </li>
          ))}
        </ul>
      )}
      {canEdit ? (
        <div className="mt-4">
          <AnswerForm
            key={question}
            action={addAnswerAction.bind(null, s)}
            idPrefix="answer"
            initial={question ? { questions: question } : undefined}
            submitLabel="Save answer"
          />
        </div>
      ) : null}
    </Card>
  );
}
