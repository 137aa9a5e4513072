"use client";

import { useActionState } from "react";
import { FormMessage } from "@/components/ui/FormError";
import { useKeptForm } from "@/components/ui/useKeptForm";
import type { PlainActionFn } from "@/lib/auth/action";

type Props = {
  action: PlainActionFn;
  domains: string[];
  canEdit: boolean;
  max: number;
};

export function DomainsForm({ action, domains, canEdit, max }: Props) {
  const [state, formAction, pending] = useActionState(action, {});
  const errors = state.ok === false ? (state.fieldErrors ?? {}) : {};
  const lineErrors = Object.entries(errors)
    .filter(([k]) => k.startsWith("siteDomains.line"))
    .map(([, v]) => v);
  const invalid = !!errors.siteDomains || lineErrors.length > 0;
  const describedBy = ["domains-help", invalid ? "domains-error" : null].filter(Boolean).join(" ");

  const { formRef, onSubmit } = useKeptForm(state, formAction);

  return (
    <form ref={formRef} key={domains.join("\n")} onSubmit={onSubmit} noValidate className="space-y-3">
      <fieldset disabled={!canEdit}>
        <label htmlFor="siteDomains" className="label">
          Your site&apos;s domains
        </label>
        <textarea
          id="siteDomains"
          name="siteDomains"
          className="input font-mono"
          rows={5}
          defaultValue={domains.join("\n")}
          placeholder={"michi-cafe.com\nhttp://localhost:5173"}
          spellCheck={false}
          aria-invalid={invalid || undefined}
          aria-describedby={describedBy}
        />
        <p id="domains-help" className="help">
          One per line, up to {max}. A domain such as michi-cafe.com also covers its subdomains (www, shop…)
          over https; the chat widget works there, and your tools may read addresses on it. A full origin such
          as http://localhost:5173 allows exactly that address for the widget (handy while developing) but not
          for tools.
        </p>
        {invalid ? (
          <div id="domains-error" className="field-error">
            {errors.siteDomains ? <p>{errors.siteDomains}</p> : null}
            {lineErrors.length > 0 ? (
              <ul className="list-disc pl-5">
                {lineErrors.map((m) => (
                  <li key={m}>{m}</li>
                ))}
              </ul>
            ) : null}
          </div>
        ) : null}
      </fieldset>
      <FormMessage state={state} />
      {canEdit ? (
        <button type="submit" className="btn" disabled={pending}>
          {pending ? "Saving…" : "Save domains"}
        </button>
      ) : null}
    </form>
  );
}
