import Link from "next/link";
import { Card } from "@/components/ui";

// Conversations a person handled in the period (issue #28): how soon a person first answered a visitor who
// asked for one, and how long until the person's part ended. Medians: one slow afternoon does not hide the rest.

type LiveMetrics = {
  requested: number;
  answered: number;
  firstResponseMedianSec: number | null;
  closed: number;
  closeMedianSec: number | null;
};

function duration(sec: number | null): string {
  if (sec === null) return "–";
  if (sec < 90) return `${sec} s`;
  if (sec < 5400) return `${Math.round(sec / 60)} min`;
  return `${(sec / 3600).toFixed(1)} h`;
}

export function LiveFigures({
  figures,
  period,
  liveHref,
}: {
  figures: LiveMetrics;
  period: number;
  liveHref: string;
}) {
  return (
    <Card
      id="live"
      title="Chats with a person"
      description={`Visitors who asked for a person, last ${period} days.`}
    >
      {figures.requested === 0 ? (
        <p className="muted text-sm">
          No visitor asked for a person in this period.{" "}
          <Link className="underline" href={liveHref}>
            Open the live chat
          </Link>
        </p>
      ) : (
        <dl className="grid gap-x-6 gap-y-1 text-sm sm:grid-cols-[auto_1fr]">
          <dt className="muted">Asked for a person</dt>
          <dd className="tabular-nums">{figures.requested}</dd>
          <dt className="muted">Typical wait for a first answer</dt>
          <dd className="tabular-nums">
            {duration(figures.firstResponseMedianSec)} ({figures.answered} answered)
          </dd>
          <dt className="muted">Typical length of the chat</dt>
          <dd className="tabular-nums">
            {duration(figures.closeMedianSec)} ({figures.closed} ended or handed back)
          </dd>
        </dl>
      )}
    </Card>
  );
}
