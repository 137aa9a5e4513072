"use client";

import { type ReactNode, useState } from "react";

// Wraps a transcript with one switch between the answers as the visitor saw them and their Markdown source.
// Both are in the HTML (the server renders them); CSS shows one, so the switch needs no round trip.

export function TranscriptView({ titleId, children }: { titleId: string; children: ReactNode }) {
  const [source, setSource] = useState(false);
  return (
    <div data-view={source ? "source" : "rendered"} className="transcript space-y-3">
      <div className="flex justify-end">
        <button
          type="button"
          className="btn btn-secondary"
          aria-pressed={source}
          aria-describedby={titleId}
          onClick={() => setSource((s) => !s)}
        >
          Show Markdown source
        </button>
      </div>
      {children}
    </div>
  );
}
