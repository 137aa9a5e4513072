"use client";

import { useState } from "react";

/** The embed snippet with a copy button; the outcome is announced in a live region. */
export function CopySnippet({ snippet }: { snippet: string }) {
  const [status, setStatus] = useState("");

  async function copy() {
    try {
      await navigator.clipboard.writeText(snippet);
      setStatus("Copied");
    } catch {
      setStatus("Could not copy: select the text and copy it yourself.");
    }
  }

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
