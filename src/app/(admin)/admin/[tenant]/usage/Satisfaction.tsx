import Link from "next/link";
import { Card } from "@/components/ui";
import type { Satisfaction as Figures } from "@/lib/feedback/types";

/** The share of rated answers visitors found helpful in the period, with the counts behind it. */
export function Satisfaction({
  figures,
  period,
  conversationsHref,
}: {
  figures: Figures;
  period: number;
  conversationsHref: string;
}) {
  const rated = figures.up + figures.down;
  return (
    <Card
      id="satisfaction"
      title="Visitor satisfaction"
      description={`Thumbs under answers, last ${period} days.`}
    >
      {figures.rate === null ? (
        <p className="muted text-sm">No answer has been rated in this period.</p>
      ) : (
        <div className="space-y-1 text-sm">
          <p>
            <strong className="text-2xl tabular-nums">{Math.round(figures.rate * 100)}%</strong> of rated
            answers were helpful
          </p>
          <p className="muted">
            {figures.up} helpful, {figures.down} not helpful, {rated} rated.{" "}
            {figures.down > 0 ? (
              <Link className="underline" href={`${conversationsHref}?rating=down`}>
                See the conversations rated down
              </Link>
            ) : null}
          </p>
        </div>
      )}
    </Card>
  );
}
