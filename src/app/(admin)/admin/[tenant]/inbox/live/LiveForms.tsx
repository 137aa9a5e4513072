"use client";

import { useActionState, useState } from "react";
import { Markdown } from "@/components/transcript/Markdown";
import { FormError, SubmitButton } from "@/components/ui";
import type { PlainActionFn } from "@/lib/auth/action";

// The console's forms: one-button changes (claim, hand back, close), assigning to a teammate, the reply box
// with its Markdown preview (the widget's safe Markdown, exactly as the visitor will see it) and saved
// replies, and internal notes. Each posts to a server action bound to the business's slug.

export function ConversationButton({
  conversationId,
  action,
  label,
  pendingText,
  variant,
  disabled,
}: {
  conversationId: string;
  action: PlainActionFn;
  label: string;
  pendingText: string;
  variant?: "secondary" | "danger";
  disabled?: boolean;
}) {
  const [state, formAction] = useActionState(action, {});
  return (
    <form action={formAction} className="flex flex-wrap items-center gap-2">
      <input type="hidden" name="conversationId" value={conversationId} />
      <SubmitButton variant={variant} disabled={disabled} pendingText={pendingText}>
        {label}
      </SubmitButton>
      <FormError state={state} />
    </form>
  );
}

export function AssignForm({
  conversationId,
  action,
  teammates,
  disabled,
}: {
  conversationId: string;
  action: PlainActionFn;
  teammates: { id: string; name: string }[];
  disabled?: boolean;
}) {
  const [state, formAction] = useActionState(action, {});
  return (
    <form action={formAction} className="flex flex-wrap items-center gap-2">
      <input type="hidden" name="conversationId" value={conversationId} />
      <label className="text-sm">
        <span className="sr-only">Give to a teammate</span>
        <select name="agentId" className="input" disabled={disabled}>
          {teammates.map((t) => (
            <option key={t.id} value={t.id}>
              {t.name}
            </option>
          ))}
        </select>
      </label>
      <SubmitButton
        variant="secondary"
        disabled={disabled || teammates.length === 0}
        pendingText="Assigning…"
      >
        Assign
      </SubmitButton>
      <FormError state={state} />
    </form>
  );
}

export function ReplyBox({
  conversationId,
  action,
  savedReplies,
  maxLength,
  disabled,
}: {
  conversationId: string;
  action: PlainActionFn;
  savedReplies: readonly { title: string; text: string }[];
  maxLength: number;
  disabled?: boolean;
}) {
  const [text, setText] = useState("");
  const [preview, setPreview] = useState(false);
  const [state, formAction] = useActionState(async (prev: Parameters<PlainActionFn>[0], fd: FormData) => {
    const next = await action(prev, fd);
    if (next.ok !== false) setText("");
    return next;
  }, {});
  return (
    <form action={formAction} className="space-y-2" aria-label="Reply to the visitor">
      <input type="hidden" name="conversationId" value={conversationId} />
      <div className="flex flex-wrap items-center gap-2">
        <label className="text-sm" htmlFor="live-reply">
          Reply
        </label>
        {savedReplies.length > 0 ? (
          <select
            aria-label="Saved replies"
            className="input"
            value=""
            disabled={disabled}
            onChange={(e) => {
              const saved = savedReplies[Number(e.target.value)];
              if (saved) setText((t) => (t ? `${t}\n\n${saved.text}` : saved.text));
            }}
          >
            <option value="">Add a saved reply…</option>
            {savedReplies.map((r, i) => (
              <option key={r.title} value={i}>
                {r.title}
              </option>
            ))}
          </select>
        ) : null}
        <button
          type="button"
          className="btn btn-secondary"
          aria-pressed={preview}
          onClick={() => setPreview((p) => !p)}
        >
          {preview ? "Edit" : "Preview"}
        </button>
      </div>
      <textarea
        id="live-reply"
        name="text"
        className="input min-h-24 w-full"
        maxLength={maxLength}
        required
        disabled={disabled}
        value={text}
        onChange={(e) => setText(e.target.value)}
        hidden={preview}
      />
      {preview ? (
        <section className="rounded border border-[var(--border)] p-2" aria-label="Preview">
          {text.trim() ? <Markdown source={text} /> : <p className="muted">Nothing to preview yet.</p>}
        </section>
      ) : null}
      <div className="flex items-center gap-2">
        <SubmitButton disabled={disabled} pendingText="Sending…">
          Send
        </SubmitButton>
        <FormError state={state} />
      </div>
    </form>
  );
}

export function NoteBox({
  conversationId,
  action,
  maxLength,
  disabled,
}: {
  conversationId: string;
  action: PlainActionFn;
  maxLength: number;
  disabled?: boolean;
}) {
  const [state, formAction] = useActionState(action, {});
  return (
    <form action={formAction} className="space-y-2" aria-label="Internal note">
      <input type="hidden" name="conversationId" value={conversationId} />
      <label className="block text-sm" htmlFor="live-note">
        Internal note (the visitor never sees it)
      </label>
      <textarea
        id="live-note"
        name="text"
        className="input min-h-16 w-full"
        maxLength={maxLength}
        required
        disabled={disabled}
      />
      <div className="flex items-center gap-2">
        <SubmitButton variant="secondary" disabled={disabled} pendingText="Adding…">
          Add note
        </SubmitButton>
        <FormError state={state} />
      </div>
    </form>
  );
}
