"use client";

import { useActionState, useEffect, useState } from "react";
import { FormMessage, InputField, SubmitButton } from "@/components/ui";
import { OneTimePassword } from "@/components/ui/OneTimePassword";
import type { PlainActionFn } from "@/lib/auth/action";
import { slugify } from "@/shared/slug";

export function CreateTenantForm({ action }: { action: PlainActionFn }) {
  const [state, formAction] = useActionState(action, {});
  const v = state.values ?? {};
  const err = state.fieldErrors ?? {};
  // The address follows the name, as sign-up derives it, until the operator edits it.
  const [name, setName] = useState<string | null>(null);
  const [slug, setSlug] = useState<string | null>(null);
  // Each answer starts again from what the server sent back (the submitted values, or empty after success).
  useEffect(() => {
    void state;
    setName(null);
    setSlug(null);
  }, [state]);
  const shownName = name ?? v.name ?? "";
  const shownSlug = slug ?? (v.slug || (shownName.trim() ? slugify(shownName) : ""));
  return (
    <form action={formAction} className="space-y-4" noValidate>
      <FormMessage state={state} />
      <OneTimePassword email={state.data?.email} password={state.data?.oneTimePassword} />
      <div className="grid gap-4 sm:grid-cols-3">
        <InputField
          id="new-name"
          name="name"
          label="Business name"
          required
          value={shownName}
          onChange={(e) => setName(e.currentTarget.value)}
          error={err.name}
        />
        <InputField
          id="new-slug"
          name="slug"
          label="Address (slug)"
          help="Used in /admin/<slug>. Filled in from the name as you type; change it if you like."
          value={shownSlug}
          onChange={(e) => setSlug(e.currentTarget.value)}
          error={err.slug}
        />
        <InputField
          id="new-owner"
          name="ownerEmail"
          type="email"
          label="Owner's e-mail"
          autoComplete="off"
          required
          defaultValue={v.ownerEmail ?? ""}
          error={err.ownerEmail}
        />
      </div>
      <SubmitButton pendingText="Creating…">Create business</SubmitButton>
    </form>
  );
}

export function StatusForm({
  action,
  tenantId,
  status,
}: {
  action: PlainActionFn;
  tenantId: string;
  status: string;
}) {
  const [state, formAction] = useActionState(action, {});
  const next = status === "suspended" ? "active" : "suspended";
  return (
    <form action={formAction} className="space-y-3">
      <FormMessage state={state} />
      <input type="hidden" name="tenantId" value={tenantId} />
      <input type="hidden" name="status" value={next} />
      <SubmitButton variant={next === "suspended" ? "danger" : "primary"} pendingText="Saving…">
        {next === "suspended" ? "Suspend" : "Resume"}
      </SubmitButton>
    </form>
  );
}

/** "Send again" for one unanswered invitation: a new link replaces the old one. */
export function ResendInvitationForm({
  action,
  tenantId,
  invitationId,
  email,
}: {
  action: PlainActionFn;
  tenantId: string;
  invitationId: string;
  email: string;
}) {
  const [state, formAction] = useActionState(action, {});
  return (
    <form action={formAction} className="space-y-2">
      <FormMessage state={state} />
      <input type="hidden" name="tenantId" value={tenantId} />
      <input type="hidden" name="invitationId" value={invitationId} />
      <SubmitButton variant="secondary" pendingText="Sending…">
        Send again<span className="sr-only"> to {email}</span>
      </SubmitButton>
    </form>
  );
}

export type LimitField = {
  name: string;
  label: string;
  value: number | null;
  placeholder: number;
  help?: string;
};

export function LimitsForm({
  action,
  tenantId,
  fields,
  submitLabel = "Save budget and limits",
}: {
  action: PlainActionFn;
  tenantId: string;
  fields: LimitField[];
  submitLabel?: string;
}) {
  const [state, formAction] = useActionState(action, {});
  return (
    <form action={formAction} className="space-y-4" noValidate>
      <FormMessage state={state} />
      <input type="hidden" name="tenantId" value={tenantId} />
      <div className="grid gap-4 sm:grid-cols-2">
        {fields.map((f) => (
          <InputField
            key={f.name}
            id={`limit-${f.name}`}
            name={f.name}
            label={f.label}
            inputMode="numeric"
            placeholder={String(f.placeholder)}
            help={f.help ?? `Empty: the platform default (${f.placeholder.toLocaleString("en")}).`}
            defaultValue={state.values?.[f.name] ?? (f.value === null ? "" : String(f.value))}
            error={state.fieldErrors?.[f.name]}
          />
        ))}
      </div>
      <SubmitButton pendingText="Saving…">{submitLabel}</SubmitButton>
    </form>
  );
}
