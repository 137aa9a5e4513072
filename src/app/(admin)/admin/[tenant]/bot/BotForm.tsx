"use client";

import { useActionState } from "react";
import { FormMessage } from "@/components/ui/FormError";
import { useKeptForm } from "@/components/ui/useKeptForm";
import type { PlainActionFn } from "@/lib/auth/action";
import { IntroFields, LookFields, ModelFields } from "./BotFields";

type Props = {
  action: PlainActionFn;
  values: Record<string, string>;
  models: string[];
  canEdit: boolean;
};

export function BotForm({ action, values, models, canEdit }: Props) {
  const [state, formAction, pending] = useActionState(action, {});
  const { formRef, onSubmit } = useKeptForm(state, formAction);
  const errors = state.ok === false ? (state.fieldErrors ?? {}) : {};
  const v = (name: string) => values[name] ?? "";

  return (
    <form ref={formRef} key={JSON.stringify(values)} onSubmit={onSubmit} noValidate className="space-y-6">
      <IntroFields v={v} errors={errors} canEdit={canEdit} />
      <ModelFields v={v} errors={errors} canEdit={canEdit} models={models} />
      <LookFields v={v} errors={errors} canEdit={canEdit} />
      <FormMessage state={state} />
      {canEdit ? (
        <button type="submit" className="btn" disabled={pending}>
          {pending ? "Saving…" : "Save bot settings"}
        </button>
      ) : (
        <p className="muted text-sm">You can view these settings; only admins and owners can change them.</p>
      )}
    </form>
  );
}
