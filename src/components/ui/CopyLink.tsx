"use client";

import { useId } from "react";
import { useCopy } from "./useCopy";

/**
 * A link shown once (an invitation) with a copy button. The link sits in a read-only field so it can also be
 * selected by hand; the outcome of copying is announced in a live region.
 */
export function CopyLink({ link, label }: { link: string; label: string }) {
  const id = useId();
  const { status, copy } = useCopy(link, "link");

  return (
    <div className="space-y-2 rounded-lg border border-[var(--border)] p-3">
      <label htmlFor={id} className="block text-sm font-medium">
        {label}
      </label>
      <input
        id={id}
        className="input font-mono text-sm"
        readOnly
        value={link}
        onFocus={(e) => e.currentTarget.select()}
      />
      <div className="flex items-center gap-3">
        <button type="button" className="btn btn-secondary" onClick={copy}>
          Copy link
        </button>
        <span role="status" aria-live="polite" className="text-sm">
          {status}
        </span>
      </div>
    </div>
  );
}
