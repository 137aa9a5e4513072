import { FilterBar, FilterSelect, InputField } from "@/components/ui";
import type { InboxFilters as Filters } from "@/lib/leads/types";
import { KIND_LABEL } from "./filters";

const STATUS_OPTIONS = [
  { value: "new", label: "New" },
  { value: "handled", label: "Handled" },
];
const KIND_OPTIONS = [
  { value: "lead", label: KIND_LABEL.lead },
  { value: "handoff", label: KIND_LABEL.handoff },
  { value: "booking", label: KIND_LABEL.booking },
];

/** The Inbox filter: status, kind and a search of the contact details and message. */
export function InboxFilters({
  action,
  filters,
  filtered,
  canExport,
}: {
  action: string;
  filters: Filters;
  filtered: boolean;
  canExport: boolean;
}) {
  return (
    <FilterBar
      action={action}
      columns="sm:grid-cols-[1fr_1fr_2fr_auto]"
      filtered={filtered}
      notes={
        canExport ? (
          <p className="help">
            Export takes every request of the last 30 days (add from= and to= for others).
          </p>
        ) : null
      }
    >
      <FilterSelect
        id="i-status"
        label="Status"
        name="status"
        value={filters.status ?? ""}
        options={STATUS_OPTIONS}
      />
      <FilterSelect id="i-kind" label="Kind" name="kind" value={filters.kind ?? ""} options={KIND_OPTIONS} />
      <InputField
        id="i-q"
        label="Search"
        help="Name, e-mail, phone or message."
        type="search"
        name="q"
        maxLength={200}
        defaultValue={filters.q}
      />
    </FilterBar>
  );
}
