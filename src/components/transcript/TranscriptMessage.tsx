import type { ReactNode } from "react";
import { When } from "@/components/ui/When";
import { Markdown } from "./Markdown";

// One message of a transcript, as the admin reads it. The answer is rendered as the visitor saw it; its source
// sits beside it, hidden until the transcript's "Show Markdown source" toggle (TranscriptView) is on. Other
// features add to a message through `footer` (ratings, hand-off notes, …) rather than by editing this file.

export type TranscriptMessageProps = {
  id: string;
  role: "user" | "assistant" | string;
  content: string;
  createdAt: Date;
  /** The business's time zone. */
  tz: string;
  status: string;
  reason: string | null;
  /** Shown under a bot answer: the model and tokens, for example. */
  meta?: ReactNode;
  footer?: ReactNode;
};

export function TranscriptMessage(m: TranscriptMessageProps) {
  const visitor = m.role === "user";
  // A person of the business who took the conversation over (issue #28).
  const who = visitor ? "Visitor" : m.role === "agent" ? "Person" : "Bot";
  return (
    <article
      aria-label={who}
      data-message={m.id}
      className={`max-w-[85%] rounded-[var(--radius-card)] border border-[var(--border)] p-3 ${
        visitor ? "self-end bg-brand-50 dark:bg-brand-800/40" : "self-start bg-[var(--surface)]"
      }`}
    >
      <header className="mb-1 flex flex-wrap items-baseline gap-x-3 text-xs muted">
        <span className="font-semibold">{who}</span>
        <When at={m.createdAt} tz={m.tz} seconds />
        {m.status !== "complete" ? (
          <span className="font-semibold text-danger-700 dark:text-red-300">
            {m.status}
            {m.reason ? `: ${m.reason}` : ""}
          </span>
        ) : null}
      </header>
      {!m.content ? (
        <p className="muted">(no text)</p>
      ) : visitor ? (
        // Visitors type plain text; the widget shows it as typed, and so does the transcript.
        <p className="whitespace-pre-wrap break-words">{m.content}</p>
      ) : (
        <>
          <div className="transcript-rendered break-words">
            <Markdown source={m.content} />
          </div>
          <pre className="transcript-source whitespace-pre-wrap break-words rounded bg-[var(--surface-muted)] p-2 font-mono text-xs">
            {m.content}
          </pre>
        </>
      )}
      {m.meta ? <p className="mt-1 text-xs muted">{m.meta}</p> : null}
      {m.footer}
    </article>
  );
}
