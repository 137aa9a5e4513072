"use client";

import { useCopy } from "@/components/ui/useCopy";

/** The embed snippet with a copy button; the outcome is announced in a live region. */
export function CopySnippet({ snippet }: { snippet: string }) {
  const { status, copy } = useCopy(snippet, "text");

  return (
    <div className="space-y-2">
      <pre
        id="embed-snippet"
        className="overflow-x-auto whitespace-pre-wrap break-all rounded-lg bg-[var(--surface-muted)] p-3 font-mono text-sm"
      >
        <code>{snippet}</code>
      </pre>
      <div className="flex items-center gap-3">
        <button type="button" className="btn btn-secondary" onClick={copy} aria-describedby="embed-snippet">
          Copy snippet
        </button>
        <span role="status" aria-live="polite" className="text-sm">
          {status}
        </span>
      </div>
    </div>
  );
}
