"use client";

import { useActionState } from "react";
import { FormMessage, InputField, SubmitButton } from "@/components/ui";
import type { PlainActionFn } from "@/lib/auth/action";

export type EventOption = { value: string; label: string };

/** A signing secret, shown exactly once after it is made (also post_json's, on the Tools page). */
export function SigningSecret({ secret }: { secret?: string }) {
  if (!secret) return null;
  return (
    <div className="rounded-lg border border-[var(--border)] p-3">
      <p className="text-sm">Signing secret (copy it now; it is not shown again):</p>
      <output className="mt-1 block select-all break-all font-mono text-sm" aria-label="Signing secret">
        {secret}
      </output>
    </div>
  );
}

function EndpointFields({
  prefix,
  state,
  events,
  initial,
}: {
  prefix: string;
  state: { ok?: boolean; fieldErrors?: Record<string, string>; values?: Record<string, string> };
  events: EventOption[];
  initial?: { url: string; description: string; events: string[] };
}) {
  const v = state.values ?? {};
  // What was sent back after a refusal (none ticked is a choice too), else the endpoint's events; a new
  // endpoint starts with every event ticked, as most receivers want them all.
  const chosen =
    v.events !== undefined
      ? v.events.split("\n")
      : state.ok === false
        ? []
        : (initial?.events ?? events.map((e) => e.value));
  const eventsError = state.fieldErrors?.events;
  return (
    <>
      <InputField
        id={`${prefix}-url`}
        name="url"
        type="url"
        label="Endpoint URL"
        required
        autoComplete="off"
        help="An https address on the public internet, such as a Zapier or Make hook, or your CRM's."
        defaultValue={v.url ?? initial?.url ?? ""}
        error={state.fieldErrors?.url}
      />
      <InputField
        id={`${prefix}-description`}
        name="description"
        label="Description (optional)"
        autoComplete="off"
        defaultValue={v.description ?? initial?.description ?? ""}
        error={state.fieldErrors?.description}
      />
      <fieldset aria-describedby={eventsError ? `${prefix}-events-error` : undefined}>
        <legend className="label">Events</legend>
        {events.map((e) => (
          <label key={e.value} className="flex items-center gap-2 text-sm">
            <input type="checkbox" name="events" value={e.value} defaultChecked={chosen.includes(e.value)} />
            <code>{e.value}</code> <span className="muted">{e.label}</span>
          </label>
        ))}
        {eventsError ? (
          <p id={`${prefix}-events-error`} className="field-error">
            {eventsError}
          </p>
        ) : null}
      </fieldset>
    </>
  );
}

export function AddEndpointForm({ action, events }: { action: PlainActionFn; events: EventOption[] }) {
  const [state, formAction] = useActionState(action, {});
  return (
    <form action={formAction} className="space-y-4" noValidate>
      <FormMessage state={state} />
      <SigningSecret secret={state.data?.secret} />
      <EndpointFields prefix="new" state={state} events={events} />
      <SubmitButton pendingText="Adding…">Add endpoint</SubmitButton>
    </form>
  );
}

export function EditEndpointForm({
  action,
  events,
  endpoint,
}: {
  action: PlainActionFn;
  events: EventOption[];
  endpoint: { id: string; url: string; description: string; events: string[] };
}) {
  const [state, formAction] = useActionState(action, {});
  return (
    <form action={formAction} className="space-y-4" noValidate>
      <FormMessage state={state} />
      <input type="hidden" name="endpointId" value={endpoint.id} />
      <EndpointFields prefix="edit" state={state} events={events} initial={endpoint} />
      <SubmitButton pendingText="Saving…">Save endpoint</SubmitButton>
    </form>
  );
}

/** One button posting a hidden id (switch on/off, roll secret, delete, redeliver), with its outcome beside it. */
export function IdButton({
  action,
  name,
  value,
  extra,
  label,
  pendingText,
  variant,
  ariaLabel,
}: {
  action: PlainActionFn;
  name: string;
  value: string;
  extra?: Record<string, string>;
  label: string;
  pendingText: string;
  variant?: "secondary" | "danger";
  ariaLabel?: string;
}) {
  const [state, formAction] = useActionState(action, {});
  return (
    <form action={formAction} className="space-y-2">
      <input type="hidden" name={name} value={value} />
      {Object.entries(extra ?? {}).map(([k, v]) => (
        <input key={k} type="hidden" name={k} value={v} />
      ))}
      <SubmitButton variant={variant ?? "secondary"} pendingText={pendingText} aria-label={ariaLabel}>
        {label}
      </SubmitButton>
      {state.data?.secret ? <SigningSecret secret={state.data.secret} /> : null}
      <FormMessage state={state} />
    </form>
  );
}

/** What a viewer sees: hook URLs are often capabilities, so only owners and admins see or change them. */
export function AdminsOnly() {
  return (
    <p role="note" className="card max-w-3xl text-sm">
      Only owners and admins can see and change webhooks.
    </p>
  );
}
