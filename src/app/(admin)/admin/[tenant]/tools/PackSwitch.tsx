"use client";

import { startTransition, useActionState, useOptimistic } from "react";
import type { PlainActionFn } from "@/lib/auth/action";

type Props = { packId: string; name: string; enabled: boolean; canEdit: boolean; action: PlainActionFn };

/**
 * The list's on/off switch: a real switch for assistive technology (role="switch", aria-checked), one click to
 * flip. The server decides (a pack that needs settings stays off, with the reason shown beside it).
 */
export function PackSwitch({ packId, name, enabled, canEdit, action }: Props) {
  const [state, formAction, pending] = useActionState(action, {});
  const [shown, setShown] = useOptimistic(enabled);
  const messageId = `pack-${packId}-switch-msg`;
  const refused = state.ok === false && state.message;

  function flip() {
    const fd = new FormData();
    fd.set("packId", packId);
    fd.set("enabled", shown ? "false" : "true");
    startTransition(() => {
      setShown(!shown);
      formAction(fd);
    });
  }

  return (
    <span className="flex flex-col items-end gap-1">
      <span className="flex items-center gap-2">
        <span className="muted text-sm" aria-hidden="true">
          {shown ? "On" : "Off"}
        </span>
        <button
          type="button"
          role="switch"
          className="switch"
          aria-checked={shown}
          aria-label={`${name}: bot may use this tool`}
          aria-describedby={refused ? messageId : undefined}
          disabled={!canEdit || pending}
          onClick={flip}
        />
      </span>
      {/* A refusal is shown beside the switch; a success only announced (the switch itself shows it). */}
      <span id={messageId} role="status" className={refused ? "field-error max-w-xs text-right" : "sr-only"}>
        {state.message ?? ""}
      </span>
    </span>
  );
}
