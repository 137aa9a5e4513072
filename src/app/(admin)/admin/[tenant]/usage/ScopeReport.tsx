import Link from "next/link";
import { Card } from "@/components/ui";

type Kind = "sourced" | "neither" | "unknown" | "handoff" | "figure";
type Week = { week: string; total: number } & Record<Kind, number>;

const COLUMNS: { kind: Kind; label: string }[] = [
  { kind: "sourced", label: "Cited sources or pack results" },
  { kind: "neither", label: "With neither" },
  { kind: "unknown", label: "Said it did not know" },
  { kind: "handoff", label: "Handed off to a person" },
  { kind: "figure", label: "Unsupported figure" },
];

const pct = (n: number, of: number) => `${Math.round((n / of) * 100)}%`;

function weekEnd(week: string): string {
  const d = new Date(`${week}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + 6);
  return d.toISOString().slice(0, 10);
}

/** Per week, what the bot's answers rested on; each number links to the conversations behind it. */
export function ScopeReport({ weeks, conversationsHref }: { weeks: Week[]; conversationsHref: string }) {
  return (
    <Card
      id="scope"
      title="What answers rested on"
      description="Per week (from Monday), the share of the bot's answers that cited your pages or used a pack's live data, answered from neither, said it did not know, handed off to a person, or stated a figure none of its sources stated. Click a number for the conversations behind it."
    >
      {weeks.length === 0 ? (
        <p className="muted text-sm">No answers in the last eight weeks.</p>
      ) : (
        <div className="overflow-x-auto">
          <table className="w-full text-sm">
            <thead>
              <tr>
                <th scope="col" className="text-left">
                  Week of
                </th>
                <th scope="col" className="text-right">
                  Answers
                </th>
                {COLUMNS.map((c) => (
                  <th key={c.kind} scope="col" className="text-right">
                    {c.label}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {weeks.map((w) => (
                <tr key={w.week}>
                  <th scope="row" className="text-left font-normal">
                    {w.week}
                  </th>
                  <td className="text-right tabular-nums">{w.total}</td>
                  {COLUMNS.map((c) => (
                    <td key={c.kind} className="text-right tabular-nums">
                      {w[c.kind] === 0 ? (
                        "0%"
                      ) : (
                        <Link
                          className="underline"
                          href={`${conversationsHref}?${new URLSearchParams({ scope: c.kind, from: w.week, to: weekEnd(w.week) })}`}
                          aria-label={`${w[c.kind]} of ${w.total} answers in the week of ${w.week}: ${c.label}`}
                        >
                          {pct(w[c.kind], w.total)}
                        </Link>
                      )}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Card>
  );
}
