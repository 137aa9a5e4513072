"use client";

import { useActionState } from "react";
import { FormMessage, SubmitButton } from "@/components/ui";
import type { PlainActionFn } from "@/lib/auth/action";

export function ChannelsSwitchForm({ action, enabled }: { action: PlainActionFn; enabled: boolean }) {
  const [state, formAction] = useActionState(action, {});
  return (
    <form action={formAction} className="space-y-2">
      <p className="text-sm">
        {enabled ? "Channels are on." : "Channels are switched off for every business."}
      </p>
      <input type="hidden" name="enabled" value={enabled ? "false" : "true"} />
      <SubmitButton variant={enabled ? "danger" : "secondary"} pendingText="Saving…">
        {enabled ? "Switch channels off" : "Switch channels on"}
      </SubmitButton>
      <FormMessage state={state} />
    </form>
  );
}
