"use client";

import { useActionState } from "react";
import { ConfigFields } from "@/components/config-form/ConfigFields";
import { FormMessage } from "@/components/ui/FormError";
import { useKeptForm } from "@/components/ui/useKeptForm";
import type { ActionState, PlainActionFn } from "@/lib/auth/action";
import type { PackView } from "@/lib/pack-settings/settings";
import { errorsByField, type FieldValues, fieldName } from "@/lib/tools/form-data";
import { SigningSecret } from "../webhooks/WebhookForms";

type Props = {
  pack: PackView;
  canEdit: boolean;
  saveAction: PlainActionFn;
  /** The business's time zone, for the day each secret was set. */
  timeZone: string;
};

/** After a failed save, the inputs start from what was typed (secrets are never echoed, so they start empty). */
function startingValues(pack: PackView, state: ActionState): { values: FieldValues; enabled: boolean } {
  if (state.ok !== false || !state.values) return { values: pack.values, enabled: pack.enabled };
  const typed = state.values;
  const values: FieldValues = {};
  for (const f of pack.fields) {
    if (f.type === "secret") continue;
    const name = fieldName(f.key);
    values[f.key] =
      f.type === "boolean" ? (typed[name] ? "true" : "false") : (typed[name] ?? pack.values[f.key] ?? "");
  }
  return { values, enabled: !!typed.enabled };
}

/** One pack's settings form (its details page shows the name, chip and status above it). */
export function PackCard({ pack, canEdit, saveAction, timeZone }: Props) {
  const [state, formAction, pending] = useActionState(saveAction, {});
  const { formRef, onSubmit } = useKeptForm(state, formAction);
  const idPrefix = `pack-${pack.id}`;
  const start = startingValues(pack, state);
  // A new saved state from the server remounts the inputs; a failed save changes nothing on the server, so
  // the inputs stay as typed.
  const formKey = JSON.stringify([pack.enabled, pack.values, pack.secrets]);

  const titleId = `${idPrefix}-title`;
  return (
    <section className="card" aria-labelledby={titleId} data-pack={pack.id}>
      <h2 id={titleId} className="font-semibold text-lg">
        Settings
      </h2>
      <form key={formKey} ref={formRef} onSubmit={onSubmit} noValidate className="mt-4 space-y-4">
        <input type="hidden" name="packId" value={pack.id} />
        <fieldset disabled={!canEdit} className="space-y-4">
          <div className="flex items-center gap-2">
            <input
              id={`${idPrefix}-enabled`}
              name="enabled"
              type="checkbox"
              value="on"
              className="h-4 w-4"
              defaultChecked={start.enabled}
            />
            <label htmlFor={`${idPrefix}-enabled`} className="label mb-0">
              Enabled: the bot may use this tool
            </label>
          </div>
          <ConfigFields
            idPrefix={idPrefix}
            fields={pack.fields}
            values={start.values}
            secrets={pack.secrets}
            errors={
              state.ok === false ? errorsByField(pack.fields, state.fieldErrors ?? {}).byField : undefined
            }
            readOnly={!canEdit}
            timeZone={timeZone}
          />
        </fieldset>
        {!canEdit ? (
          <p className="muted text-sm">
            You can view these settings; only admins and owners can change them.
          </p>
        ) : null}
        <FormMessage state={state} />
        <SigningSecret secret={state.ok !== false ? state.data?.secret : undefined} />
        {canEdit ? (
          <button type="submit" className="btn" disabled={pending}>
            {pending ? "Saving…" : "Save"}
          </button>
        ) : null}
      </form>
    </section>
  );
}
