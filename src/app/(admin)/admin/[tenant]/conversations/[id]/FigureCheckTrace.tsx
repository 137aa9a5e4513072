import { findPack } from "@/lib/tools/index";
import type { StoredFigureCheck } from "@/shared/figure-check";

// The figure check's verdict under an answer: each figure the answer stated and where the turn's sources state
// it, or that none does. Open by default when a figure was not found, so the owner sees it without a click.

const KIND: Record<StoredFigureCheck["figures"][number]["kind"], string> = {
  money: "price",
  time: "time",
  date: "date",
  phone: "phone",
  email: "e-mail",
  percent: "percentage",
  quantity: "quantity",
};

/** Where a figure was found, in an owner's words. */
function where(found: string): string {
  if (found === "instructions") return "your bot's instructions";
  if (found === "visitor") return "the visitor's own message";
  if (found.startsWith("passage")) return `your website: ${found.replace(/^passage\s*/, "")}`;
  return `tool ${findPack(found)?.label ?? found}`;
}

export function FigureCheckTrace({ check }: { check: StoredFigureCheck | null }) {
  if (!check || check.figures.length === 0) return null;
  const missing = check.unsupported;
  return (
    <details
      open={missing > 0}
      className="mt-2 rounded border border-dashed border-[var(--border)] px-3 py-2 text-xs"
    >
      <summary className="cursor-pointer select-none">
        <span className="font-semibold">Figure check:</span>{" "}
        {missing === 0
          ? `all ${check.figures.length} found in this answer's sources`
          : `${missing} of ${check.figures.length} not found in this answer's sources (${check.mode === "hold" ? "answer held" : "visitor asked to check"})`}
      </summary>
      <ul className="mt-2 space-y-1">
        {check.figures.map((f, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: the list is stored once and never reordered
          <li key={i}>
            <code>{f.text}</code> <span className="muted">({KIND[f.kind]})</span>:{" "}
            {f.found ? (
              <>found in {where(f.found)}</>
            ) : (
              <span className="font-semibold text-danger-700 dark:text-red-300">not found</span>
            )}
          </li>
        ))}
      </ul>
      {check.held ? (
        <div className="mt-2">
          <p className="muted">The visitor was shown the sentence above instead of what the model wrote:</p>
          <p className="mt-1 whitespace-pre-wrap rounded bg-[var(--surface-muted)] p-2">{check.held}</p>
        </div>
      ) : null}
    </details>
  );
}
