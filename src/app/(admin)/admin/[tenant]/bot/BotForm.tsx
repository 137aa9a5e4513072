"use client";

import { useActionState, useState } from "react";
import { FormMessage } from "@/components/ui/FormError";
import { useKeptForm } from "@/components/ui/useKeptForm";
import type { PlainActionFn } from "@/lib/auth/action";
import { IntroFields, LookFields, ModelFields } from "./BotFields";
import { BotPreview } from "./BotPreview";

type Props = {
  action: PlainActionFn;
  values: Record<string, string>;
  models: string[];
  canEdit: boolean;
  widgetKey: string;
  businessName: string;
};

export function BotForm({ action, values, models, canEdit, widgetKey, businessName }: Props) {
  const [state, formAction, pending] = useActionState(action, {});
  const { formRef, onSubmit } = useKeptForm(state, formAction);
  const errors = state.ok === false ? (state.fieldErrors ?? {}) : {};
  const v = (name: string) => values[name] ?? "";
  // Bumped on every input in the form, so the preview redraws from what it holds now.
  const [revision, setRevision] = useState(0);
  const changed = () => setRevision((n) => n + 1);

  return (
    <div className="grid items-start gap-6 lg:grid-cols-[minmax(0,1fr)_360px]">
      <form
        onInput={changed}
        onChange={changed}
        ref={formRef}
        key={JSON.stringify(values)}
        onSubmit={onSubmit}
        noValidate
        className="space-y-6"
      >
        <IntroFields v={v} errors={errors} canEdit={canEdit} />
        <ModelFields v={v} errors={errors} canEdit={canEdit} models={models} />
        <LookFields v={v} errors={errors} canEdit={canEdit} />
        <FormMessage state={state} />
        {canEdit ? (
          <button type="submit" className="btn" disabled={pending}>
            {pending ? "Saving…" : "Save bot settings"}
          </button>
        ) : (
          <p className="muted text-sm">
            You can view these settings; only admins and owners can change them.
          </p>
        )}
      </form>
      <div className="lg:sticky lg:top-4">
        <BotPreview formRef={formRef} widgetKey={widgetKey} businessName={businessName} revision={revision} />
      </div>
    </div>
  );
}
