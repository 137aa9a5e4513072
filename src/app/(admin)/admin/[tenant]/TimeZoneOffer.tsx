"use client";

import { useActionState, useEffect, useState } from "react";
import { FormMessage, SubmitButton } from "@/components/ui";
import type { PlainActionFn } from "@/lib/auth/action";

/**
 * A business whose zone nobody chose (the operator made it, so it started in UTC) offers its admin the
 * browser's zone, once: choosing either zone ends the offer for the whole team. The browser's zone is read
 * after hydration (the server cannot know it); the confirmation stays on screen after the page drops the offer.
 */
export function TimeZoneOffer({
  action,
  zone,
  open,
}: {
  action: PlainActionFn;
  zone: string;
  /** Still unchosen, as the server last saw it. */
  open: boolean;
}) {
  const [state, formAction] = useActionState(action, {});
  const [browser, setBrowser] = useState<string | null>(null);
  useEffect(() => {
    setBrowser(Intl.DateTimeFormat().resolvedOptions().timeZone || null);
  }, []);
  if (!open && !state.message) return null;
  const label = (z: string) => z.replaceAll("_", " ");
  return (
    <section id="time-zone-offer" aria-labelledby="time-zone-offer-title" className="card space-y-3">
      <h2 id="time-zone-offer-title" className="text-lg font-semibold">
        Time zone
      </h2>
      <FormMessage state={state} />
      {open ? (
        <form action={formAction} className="space-y-3">
          <p className="text-sm">
            Dates here are shown in {label(zone)}, the zone this business started with.
            {browser && browser !== zone ? ` Your browser is in ${label(browser)}.` : ""} Every date, time and
            daily chart of this admin is shown in the zone you keep, for everyone on the team.
          </p>
          <div className="flex flex-wrap gap-2">
            {browser && browser !== zone ? (
              <SubmitButton name="timeZone" value={browser} pendingText="Saving…">
                Use {label(browser)}
              </SubmitButton>
            ) : null}
            <SubmitButton name="timeZone" value={zone} variant="secondary" pendingText="Saving…">
              Keep {label(zone)}
            </SubmitButton>
          </div>
        </form>
      ) : null}
    </section>
  );
}
