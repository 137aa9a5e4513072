"use client";

import { useActionState } from "react";
import { FormMessage, SubmitButton } from "@/components/ui";
import type { PlainActionFn } from "@/lib/auth/action";

// The business's live chat settings: per-agent limit, unclaimed-after minutes, opening hours, saved replies.

const DAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];

export type LiveSettingsValues = {
  maxPerAgent: number;
  escalateAfterMin: number;
  timeZone: string;
  open: string;
  close: string;
  days: number[];
  savedReplies: string;
};

export function LiveSettingsForm({ action, values }: { action: PlainActionFn; values: LiveSettingsValues }) {
  const [state, formAction] = useActionState(action, {});
  const err = (k: string) => state.fieldErrors?.[k];
  return (
    <form action={formAction} className="space-y-3 text-sm" aria-label="Live chat settings">
      <div className="flex flex-wrap gap-4">
        <label className="block">
          Chats one teammate handles at once (at most)
          <input
            name="maxPerAgent"
            type="number"
            min={1}
            max={20}
            defaultValue={values.maxPerAgent}
            className="input block w-24"
          />
          {err("maxPerAgent") ? <span className="text-danger-700">{err("maxPerAgent")}</span> : null}
        </label>
        <label className="block">
          Alert the team when nobody answers a visitor within (minutes)
          <input
            name="escalateAfterMin"
            type="number"
            min={1}
            max={240}
            defaultValue={values.escalateAfterMin}
            className="input block w-24"
          />
          {err("escalateAfterMin") ? (
            <span className="text-danger-700">{err("escalateAfterMin")}</span>
          ) : null}
        </label>
      </div>
      <fieldset className="space-y-2">
        <legend className="font-semibold">Hours for live chat (leave empty to allow it at any time)</legend>
        <div className="flex flex-wrap gap-3">
          <label>
            Time zone
            <input
              name="timeZone"
              placeholder="Europe/Madrid"
              defaultValue={values.timeZone}
              className="input block"
            />
          </label>
          <label>
            Opens
            <input name="open" placeholder="09:00" defaultValue={values.open} className="input block w-24" />
          </label>
          <label>
            Closes
            <input
              name="close"
              placeholder="18:00"
              defaultValue={values.close}
              className="input block w-24"
            />
          </label>
        </div>
        <div className="flex flex-wrap gap-3">
          {DAYS.map((d, i) => (
            <label key={d} className="flex items-center gap-1">
              <input type="checkbox" name="days" value={i} defaultChecked={values.days.includes(i)} />
              {d}
            </label>
          ))}
        </div>
        {["timeZone", "open", "close", "days"].map((k) =>
          err(k) ? (
            <p key={k} className="text-danger-700">
              {err(k)}
            </p>
          ) : null,
        )}
      </fieldset>
      <label className="block">
        Saved replies: one per line, a short title, a bar, then the text (for example{" "}
        <code>Thanks | Thanks for waiting!</code>)
        <textarea
          name="savedReplies"
          defaultValue={values.savedReplies}
          className="input block min-h-24 w-full"
        />
      </label>
      <SubmitButton pendingText="Saving…">Save settings</SubmitButton>
      <FormMessage state={state} />
    </form>
  );
}
