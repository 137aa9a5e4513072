"use client";

import { useActionState, useState } from "react";
import { FormMessage, SubmitButton } from "@/components/ui";
import type { ActionState, PlainActionFn } from "@/lib/auth/action";

export type QuestionInitial = {
  question?: string;
  citeUrl?: string;
  pack?: string;
  mustContain?: string;
  mustNotContain?: string;
  sayUnknown?: boolean;
  noUnsupportedFigures?: boolean;
};

type Choices = { pages: { url: string; title: string }[]; packs: { id: string; label: string }[] };

function Area({
  id,
  name,
  label,
  help,
  value,
  error,
}: {
  id: string;
  name: string;
  label: string;
  help?: string;
  value: string;
  error?: string;
}) {
  return (
    <div>
      <label htmlFor={id} className="label">
        {label}
      </label>
      {help ? (
        <p id={`${id}-help`} className="text-xs muted">
          {help}
        </p>
      ) : null}
      <textarea
        id={id}
        name={name}
        rows={2}
        className="input w-full"
        defaultValue={value}
        aria-describedby={help ? `${id}-help` : undefined}
        aria-invalid={error ? true : undefined}
      />
      {error ? <p className="field-error">{error}</p> : null}
    </div>
  );
}

/** A test question and what a right answer must do, in the owner's words; to add one or to edit one. */
export function QuestionForm({
  action,
  idPrefix,
  initial,
  questionId,
  choices,
  submitLabel,
}: {
  action: PlainActionFn;
  idPrefix: string;
  initial?: QuestionInitial;
  questionId?: string;
  choices: Choices;
  submitLabel: string;
}) {
  const [state, formAction] = useActionState(action, {});
  const v = { ...initial, ...(state.values ?? {}) } as QuestionInitial & Record<string, unknown>;
  const err = state.fieldErrors ?? {};
  const p = (s: string) => `${idPrefix}-${s}`;
  const pages =
    v.citeUrl && !choices.pages.some((x) => x.url === v.citeUrl)
      ? [{ url: v.citeUrl, title: "(no longer indexed)" }, ...choices.pages]
      : choices.pages;
  return (
    <form action={formAction} className="space-y-3" noValidate>
      <FormMessage state={state} />
      {questionId ? <input type="hidden" name="questionId" value={questionId} /> : null}
      <Area
        id={p("question")}
        name="question"
        label="Question, as a visitor would ask it"
        value={String(v.question ?? "")}
        error={err.question}
      />
      <fieldset className="space-y-3">
        <legend className="text-sm font-medium">A right answer…</legend>
        <div>
          <label htmlFor={p("cite")} className="label">
            cites this page
          </label>
          <select
            id={p("cite")}
            name="citeUrl"
            className="input w-full"
            defaultValue={String(v.citeUrl ?? "")}
            aria-invalid={err.citeUrl ? true : undefined}
          >
            <option value="">(any page, or none)</option>
            {pages.map((x) => (
              <option key={x.url} value={x.url}>
                {x.title ? `${x.title} · ${x.url}` : x.url}
              </option>
            ))}
          </select>
          {err.citeUrl ? <p className="field-error">{err.citeUrl}</p> : null}
        </div>
        <div>
          <label htmlFor={p("pack")} className="label">
            uses this pack
          </label>
          <select
            id={p("pack")}
            name="pack"
            className="input w-full"
            defaultValue={String(v.pack ?? "")}
            aria-invalid={err.pack ? true : undefined}
          >
            <option value="">(any pack, or none)</option>
            {choices.packs.map((x) => (
              <option key={x.id} value={x.id}>
                {x.label}
              </option>
            ))}
          </select>
          {err.pack ? <p className="field-error">{err.pack}</p> : null}
        </div>
        <Area
          id={p("contains")}
          name="mustContain"
          label="contains these words or figures (one per line)"
          help="Figures match however they are written: “€5” finds “5,00 €”, “9 am” finds “09:00”."
          value={String(v.mustContain ?? "")}
          error={err.mustContain}
        />
        <Area
          id={p("never")}
          name="mustNotContain"
          label="never contains these (one per line)"
          value={String(v.mustNotContain ?? "")}
          error={err.mustNotContain}
        />
        <label className="flex items-center gap-2 text-sm">
          <input type="checkbox" name="sayUnknown" defaultChecked={!!v.sayUnknown} />
          says it does not know, or offers a person
        </label>
        <label className="flex items-center gap-2 text-sm">
          <input type="checkbox" name="noUnsupportedFigures" defaultChecked={!!v.noUnsupportedFigures} />
          states no price, time, phone or other figure its sources do not state
        </label>
      </fieldset>
      <SubmitButton pendingText="Saving…">{submitLabel}</SubmitButton>
    </form>
  );
}

/** The CSV import: a file read in the browser into the text box, or text pasted into it. */
export function ImportForm({ action }: { action: PlainActionFn }) {
  const [state, formAction] = useActionState<ActionState, FormData>(action, {});
  const [text, setText] = useState("");
  return (
    <form action={formAction} className="space-y-2" noValidate>
      <FormMessage state={state} />
      <div>
        <label htmlFor="import-file" className="label">
          CSV file
        </label>
        <input
          id="import-file"
          type="file"
          accept=".csv,text/csv"
          className="text-sm"
          onChange={async (e) => setText((await e.target.files?.[0]?.text()) ?? "")}
        />
      </div>
      <div>
        <label htmlFor="import-csv" className="label">
          or paste its text
        </label>
        <textarea
          id="import-csv"
          name="csv"
          rows={4}
          className="input w-full font-mono text-xs"
          value={text}
          onChange={(e) => setText(e.target.value)}
        />
      </div>
      <SubmitButton variant="secondary" pendingText="Importing…">
        Import
      </SubmitButton>
    </form>
  );
}
