import { Card } from "@/components/ui";
import { describeExpect } from "@/lib/test-questions/expect";
import type { TestQuestionsView } from "@/lib/test-questions/views";
import { ActionButton } from "../knowledge/KnowledgeForms";
import { addTestQuestionAction, deleteTestQuestionAction, updateTestQuestionAction } from "./actions";
import { QuestionForm } from "./QuestionForm";

/** The questions, each with its checks in words and its last verdict, editable by admins; the add form. */
export function QuestionsCard({
  view,
  slug: s,
  canEdit,
}: {
  view: TestQuestionsView;
  slug: string;
  canEdit: boolean;
}) {
  const choices = { pages: view.pages, packs: view.packs };
  return (
    <Card
      id="questions"
      title="Questions"
      description={`${view.questions.length} ${view.questions.length === 1 ? "question" : "questions"}.`}
    >
      {view.questions.length === 0 ? (
        <p className="text-sm muted">
          No test questions yet: add one below, or in one click from what you already have.
        </p>
      ) : (
        <ul className="space-y-3 text-sm">
          {view.questions.map((q) => {
            const checks = describeExpect(q.expect);
            return (
              <li key={q.id} className="rounded border border-[var(--border)] p-2 space-y-1">
                <p className="font-medium">“{q.question}”</p>
                <p className="muted">
                  {checks.length
                    ? `A right answer ${checks.join("; ")}.`
                    : "No check yet: the run records its answer."}
                </p>
                {q.latest ? (
                  <p>
                    <strong>{q.latest.pass ? "Passed" : "Failed"}</strong> last time
                    {q.latest.reasons.length ? `: ${q.latest.reasons.join(" ")}` : "."}
                  </p>
                ) : null}
                {canEdit ? (
                  <details>
                    <summary className="cursor-pointer underline">
                      Edit<span className="sr-only"> the test question {q.question}</span>
                    </summary>
                    <div className="mt-2">
                      <QuestionForm
                        action={updateTestQuestionAction.bind(null, s)}
                        idPrefix={`q-${q.id}`}
                        questionId={q.id}
                        choices={choices}
                        submitLabel="Save changes"
                        initial={{
                          question: q.question,
                          citeUrl: q.expect.citeUrl,
                          pack: q.expect.pack,
                          mustContain: (q.expect.mustContain ?? []).join("\n"),
                          mustNotContain: (q.expect.mustNotContain ?? []).join("\n"),
                          sayUnknown: q.expect.sayUnknown,
                          noUnsupportedFigures: q.expect.noUnsupportedFigures,
                        }}
                      />
                    </div>
                  </details>
                ) : null}
                {canEdit ? (
                  <ActionButton
                    action={deleteTestQuestionAction.bind(null, s)}
                    fields={{ questionId: q.id }}
                    label="Delete"
                    pendingText="Deleting…"
                    variant="danger"
                    ariaLabel={`Delete the test question ${q.question}`}
                  />
                ) : null}
              </li>
            );
          })}
        </ul>
      )}
      {canEdit ? (
        <div className="mt-4">
          <h3 className="font-semibold mb-2">Add a test question</h3>
          <QuestionForm
            action={addTestQuestionAction.bind(null, s)}
            idPrefix="new"
            choices={choices}
            submitLabel="Add question"
            initial={{ noUnsupportedFigures: true }}
          />
        </div>
      ) : null}
    </Card>
  );
}
