import Link from "next/link";
import type { ReactNode } from "react";
import { Card } from "./Card";

// The filter card of a list page (Conversations, Inbox): a GET form back to the page's own address, so a
// filtered list is a link that can be shared and reloaded. Its fields come from the page; Apply and Clear
// close the row, and notes (what the export takes, which filter was ignored) sit below the form.

export function FilterBar({
  action,
  columns,
  filtered,
  notes,
  children,
}: {
  /** The list page's address without a query: the form's target and Clear's destination. */
  action: string;
  /** The grid's column classes, one column per field plus one for the buttons. */
  columns: string;
  /** Whether any filter is set, which is when Clear is offered. */
  filtered: boolean;
  notes?: ReactNode;
  children: ReactNode;
}) {
  return (
    <Card id="filters" title="Filter">
      <form method="get" action={action} className={`grid gap-3 ${columns}`}>
        {children}
        <div className="flex items-end gap-2 pb-6">
          <button type="submit" className="btn">
            Apply
          </button>
          {filtered ? (
            <Link className="btn btn-secondary" href={action}>
              Clear
            </Link>
          ) : null}
        </div>
      </form>
      {notes}
    </Card>
  );
}

/** A choice among fixed values with "Any" first, which leaves that filter out. */
export function FilterSelect({
  id,
  label,
  name,
  value,
  options,
}: {
  id: string;
  label: string;
  name: string;
  value: string;
  options: readonly { value: string; label: string }[];
}) {
  return (
    <div>
      <label className="label" htmlFor={id}>
        {label}
      </label>
      <select id={id} className="input" name={name} defaultValue={value}>
        <option value="">Any</option>
        {options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
    </div>
  );
}
