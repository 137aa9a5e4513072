import { Card } from "@/components/ui";

/** How many answers stated a figure none of their sources stated (the figure check), over the period. */
export function FigureChecks({
  figures,
  period,
}: {
  figures: { checked: number; unsupported: number };
  period: number;
}) {
  return (
    <Card
      id="figures"
      title="Figures in answers"
      description={`Prices, times, dates, phone numbers and other figures the bot stated, last ${period} days.`}
    >
      {figures.checked === 0 ? (
        <p className="muted text-sm">No answer stated a figure in this period (or the check is off).</p>
      ) : (
        <div className="space-y-1 text-sm">
          <p>
            <strong className="text-2xl tabular-nums">{figures.unsupported}</strong>{" "}
            {figures.unsupported === 1 ? "answer" : "answers"} with a figure not found in its sources
          </p>
          <p className="muted">
            Of {figures.checked} {figures.checked === 1 ? "answer" : "answers"} stating a figure. Each
            conversation shows which figure under the answer.
          </p>
        </div>
      )}
    </Card>
  );
}
