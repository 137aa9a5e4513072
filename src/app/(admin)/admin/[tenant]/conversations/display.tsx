import type { Outcome } from "@/lib/insights/types";
import { findPack } from "@/lib/tools/index";

// Small pieces the conversation list and the transcript share.

export const OUTCOME_LABELS: Record<Outcome, string> = {
  answered: "Answered",
  partial: "Partial",
  failed: "Failed",
  rate_limited: "Rate-limited",
};

export { When } from "@/components/ui/When";

const OUTCOME_STYLE: Record<Outcome, string> = {
  answered: "border-ok-600/40 bg-ok-600/10 text-green-800 dark:text-green-300",
  partial: "border-amber-500/40 bg-amber-500/10 text-amber-800 dark:text-amber-300",
  failed: "border-danger-600/40 bg-danger-600/10 text-danger-700 dark:text-red-300",
  rate_limited: "border-violet-500/40 bg-violet-500/10 text-violet-800 dark:text-violet-300",
};

export function OutcomeBadge({ outcome }: { outcome: Outcome | null }) {
  if (!outcome) return <span className="muted text-xs">No answer</span>;
  return (
    <span
      className={`inline-block rounded-full border px-2 py-0.5 text-xs font-medium ${OUTCOME_STYLE[outcome]}`}
    >
      {OUTCOME_LABELS[outcome]}
    </span>
  );
}

/** The pack's chip label for people, its id for the record; a pack no longer registered shows its id. */
export function packLabel(packId: string): string {
  return findPack(packId)?.label ?? packId;
}

export function formatNumber(n: number): string {
  return n.toLocaleString("en-US");
}
