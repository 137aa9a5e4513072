"use client";

import { useActionState } from "react";
import { Field, FormError, FormMessage, InputField, SubmitButton } from "@/components/ui";
import { CopyLink } from "@/components/ui/CopyLink";
import type { PlainActionFn } from "@/lib/auth/action";

const ROLE_OPTIONS = [
  { value: "viewer", label: "Viewer: reads only" },
  { value: "admin", label: "Admin: everything but the team" },
  { value: "owner", label: "Owner: everything" },
] as const;

export function InviteMemberForm({ action }: { action: PlainActionFn }) {
  const [state, formAction] = useActionState(action, {});
  const v = state.values ?? {};
  return (
    <form action={formAction} className="space-y-4" noValidate>
      <FormMessage state={state} />
      {state.data?.link ? (
        <CopyLink link={state.data.link} label={`Invitation link for ${state.data.email} (shown only now)`} />
      ) : null}
      <div className="grid gap-4 sm:grid-cols-[1fr_16rem]">
        <InputField
          id="invite-email"
          name="email"
          type="email"
          label="E-mail"
          required
          autoComplete="off"
          defaultValue={v.email ?? ""}
          error={state.fieldErrors?.email}
        />
        <Field id="invite-role" label="Role" error={state.fieldErrors?.role}>
          {(control) => (
            <select className="input" name="role" defaultValue={v.role ?? "viewer"} {...control}>
              {ROLE_OPTIONS.map((o) => (
                <option key={o.value} value={o.value}>
                  {o.label}
                </option>
              ))}
            </select>
          )}
        </Field>
      </div>
      <SubmitButton pendingText="Inviting…">Send invitation</SubmitButton>
    </form>
  );
}

export function RevokeInvitationForm({
  invitation,
  action,
}: {
  invitation: { id: string; email: string };
  action: PlainActionFn;
}) {
  const [state, formAction] = useActionState(action, {});
  return (
    <form action={formAction} className="space-y-1">
      <input type="hidden" name="invitationId" value={invitation.id} />
      <SubmitButton
        variant="secondary"
        pendingText="Revoking…"
        aria-label={`Revoke the invitation of ${invitation.email}`}
      >
        Revoke
      </SubmitButton>
      <FormError state={state} />
    </form>
  );
}

export function MemberControls({
  member,
  changeRole,
  remove,
}: {
  member: { userId: string; email: string; role: string };
  changeRole: PlainActionFn;
  remove: PlainActionFn;
}) {
  const [roleState, roleAction] = useActionState(changeRole, {});
  const [removeState, removeAction] = useActionState(remove, {});
  const id = `role-${member.userId}`;
  return (
    <div className="flex flex-wrap items-start gap-2">
      <form action={roleAction} className="flex items-center gap-2">
        <input type="hidden" name="userId" value={member.userId} />
        <label htmlFor={id} className="sr-only">
          Role of {member.email}
        </label>
        <select id={id} name="role" className="input w-auto" defaultValue={member.role}>
          {ROLE_OPTIONS.map((o) => (
            <option key={o.value} value={o.value}>
              {o.value}
            </option>
          ))}
        </select>
        <SubmitButton variant="secondary" pendingText="Saving…" aria-label={`Save role of ${member.email}`}>
          Save
        </SubmitButton>
      </form>
      <form action={removeAction}>
        <input type="hidden" name="userId" value={member.userId} />
        <SubmitButton variant="danger" pendingText="Removing…" aria-label={`Remove ${member.email}`}>
          Remove
        </SubmitButton>
      </form>
      <div className="basis-full">
        <FormMessage state={roleState} />
        <FormError state={removeState} />
      </div>
    </div>
  );
}

export function DeleteTenantForm({ action, slug }: { action: PlainActionFn; slug: string }) {
  const [state, formAction] = useActionState(action, {});
  return (
    <form action={formAction} className="space-y-3" noValidate>
      <FormError state={state} />
      <InputField
        id="confirm-delete"
        name="confirm"
        label={`Type ${slug} to confirm`}
        autoComplete="off"
        help="This deletes the business, its settings, packs, conversations and audit log. It cannot be undone."
        defaultValue={state.values?.confirm ?? ""}
        error={state.fieldErrors?.confirm}
      />
      <SubmitButton variant="danger" pendingText="Deleting…">
        Delete this business
      </SubmitButton>
    </form>
  );
}
