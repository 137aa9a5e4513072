"use client";

import { useRouter } from "next/navigation";
import { useActionState, useState } from "react";
import { FormMessage, InputField, SubmitButton } from "@/components/ui";
import type { ActionState, PlainActionFn } from "@/lib/auth/action";

/** One button posting fixed hidden fields (Re-sync now, exclude a page, delete an answer). */
export function ActionButton({
  action,
  fields,
  label,
  pendingText,
  ariaLabel,
  variant,
}: {
  action: PlainActionFn;
  fields: Record<string, string>;
  label: string;
  pendingText: string;
  ariaLabel?: string;
  variant?: "secondary" | "danger";
}) {
  const [state, formAction] = useActionState(action, {});
  return (
    <form action={formAction} className="space-y-1">
      {Object.entries(fields).map(([k, v]) => (
        <input key={k} type="hidden" name={k} value={v} />
      ))}
      <SubmitButton variant={variant ?? "secondary"} pendingText={pendingText} aria-label={ariaLabel}>
        {label}
      </SubmitButton>
      <FormMessage state={state} />
    </form>
  );
}

/**
 * A curated answer's form: empty (or with a question from Unanswered questions) to add one, or with a stored
 * answer's text and its id to edit it. Each form has its own id prefix, so several can be on one page.
 */
export function AnswerForm({
  action,
  idPrefix,
  initial,
  answerId,
  submitLabel,
}: {
  action: PlainActionFn;
  idPrefix: string;
  initial?: { questions?: string; answer?: string; lang?: string };
  answerId?: string;
  submitLabel: string;
}) {
  const [state, formAction] = useActionState(action, {});
  const v = { ...initial, ...(state.values ?? {}) };
  const err = state.fieldErrors ?? {};
  return (
    <form action={formAction} className="space-y-3" noValidate>
      <FormMessage state={state} />
      {answerId ? <input type="hidden" name="answerId" value={answerId} /> : null}
      <div>
        <label htmlFor={`${idPrefix}-questions`} className="label">
          Questions (one per line)
        </label>
        <textarea
          id={`${idPrefix}-questions`}
          name="questions"
          rows={3}
          className="input w-full"
          defaultValue={v.questions ?? ""}
          aria-invalid={err.questions ? true : undefined}
        />
        {err.questions ? <p className="field-error">{err.questions}</p> : null}
      </div>
      <div>
        <label htmlFor={`${idPrefix}-text`} className="label">
          Answer
        </label>
        <textarea
          id={`${idPrefix}-text`}
          name="answer"
          rows={4}
          className="input w-full"
          defaultValue={v.answer ?? ""}
          aria-invalid={err.answer ? true : undefined}
        />
        {err.answer ? <p className="field-error">{err.answer}</p> : null}
      </div>
      <InputField
        id={`${idPrefix}-lang`}
        name="lang"
        label="Language (en, es, fr, de, ja)"
        defaultValue={v.lang ?? "en"}
        error={err.lang}
      />
      <SubmitButton pendingText="Saving…">{submitLabel}</SubmitButton>
    </form>
  );
}

const MAX_FILE_BYTES = 20 * 1024 * 1024;

/**
 * Upload a document. The size is checked here before anything is sent (a larger body would only get Next's
 * bare 413), and again on the server, which also checks the type and the business's quota.
 */
/**
 * The upload posts the file itself to the upload route (src/app/api/admin/[tenant]/knowledge/upload), which
 * checks the caller before reading it and refuses anything past 20 MB while it streams.
 */
async function sendUpload(url: string, fd: FormData): Promise<ActionState> {
  const file = fd.get("file");
  if (!(file instanceof File) || file.size === 0)
    return {
      ok: false,
      message: "Choose a file to upload.",
      fieldErrors: { file: "Choose a file to upload." },
    };
  try {
    const res = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/octet-stream", "x-file-name": encodeURIComponent(file.name) },
      body: file,
    });
    const body = (await res.json().catch(() => ({}))) as {
      message?: string;
      error?: { message?: string; fieldErrors?: Record<string, string[]> };
    };
    if (res.ok) return { ok: true, message: body.message ?? `${file.name} uploaded; it is being read.` };
    const message = body.error?.message ?? "The upload failed; try again.";
    return { ok: false, message, fieldErrors: { file: body.error?.fieldErrors?.file?.[0] ?? message } };
  } catch {
    return { ok: false, message: "The upload did not reach the server; try again." };
  }
}

export function UploadDocumentForm({ uploadUrl }: { uploadUrl: string }) {
  const router = useRouter();
  const [state, formAction] = useActionState(async (_prev: ActionState, fd: FormData) => {
    const next = await sendUpload(uploadUrl, fd);
    if (next.ok) router.refresh();
    return next;
  }, {});
  const [tooLarge, setTooLarge] = useState<string | null>(null);
  const error = tooLarge ?? state.fieldErrors?.file;
  return (
    <form
      action={formAction}
      className="space-y-2"
      onSubmit={(e) => {
        const input = e.currentTarget.elements.namedItem("file") as HTMLInputElement | null;
        const file = input?.files?.[0];
        if (file && file.size > MAX_FILE_BYTES) {
          e.preventDefault();
          setTooLarge(`${file.name} is larger than 20 MB; upload a smaller file.`);
        } else setTooLarge(null);
      }}
    >
      {/* A refusal about the file is said once, under the field; only other failures go in the alert above it. */}
      {error ? null : <FormMessage state={state} />}
      <label htmlFor="document-file" className="label">
        File (PDF, DOCX, Markdown or plain text, at most 20 MB)
      </label>
      <input
        id="document-file"
        name="file"
        type="file"
        accept=".pdf,.docx,.md,.markdown,.txt,application/pdf,text/markdown,text/plain"
        className="input w-full"
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? "document-file-error" : undefined}
      />
      {error ? (
        <p id="document-file-error" className="field-error">
          {error}
        </p>
      ) : null}
      <SubmitButton pendingText="Uploading…">Upload</SubmitButton>
    </form>
  );
}
