import { FilterBar, FilterSelect, InputField } from "@/components/ui";
import { type ListFilters, OUTCOMES } from "@/lib/insights/types";
import { ALL_PACKS } from "@/lib/tools/index";
import { CHANNEL_OPTIONS } from "@/shared/channels";
import { OUTCOME_LABELS } from "./display";

const PACK_OPTIONS = ALL_PACKS.map((p) => ({ value: p.id, label: `${p.label} (${p.id})` }));
const OUTCOME_OPTIONS = OUTCOMES.map((o) => ({ value: o, label: OUTCOME_LABELS[o] }));
const RATING_OPTIONS = [
  { value: "down", label: "Rated down" },
  { value: "up", label: "Rated up" },
];

// The Usage page's scope report links here with one of these.
const SCOPE_OPTIONS = [
  { value: "sourced", label: "Cited sources or pack results" },
  { value: "neither", label: "With neither" },
  { value: "unknown", label: "Said it did not know" },
  { value: "handoff", label: "Handed off to a person" },
  { value: "figure", label: "Unsupported figure" },
];

/** The Conversations filter: days, the tool used, the outcome, the channel, ratings and a search of the messages. */
export function ConversationFilters({
  action,
  filters,
  filtered,
  ignored,
  canExport,
}: {
  action: string;
  filters: ListFilters;
  filtered: boolean;
  ignored: string[];
  canExport: boolean;
}) {
  return (
    <FilterBar
      action={action}
      // Eight labelled fields and the buttons wrap into a grid: two rows from lg (1280 px included), the search
      // twice as wide for its help line, rather than eight squeezed columns in one row.
      columns="sm:grid-cols-2 md:grid-cols-3 lg:grid-cols-5"
      filtered={filtered}
      notes={
        <>
          {canExport ? (
            <p className="help">
              Export takes every message of the chosen days (the last 30 days when none are chosen), with its
              tool calls; the other filters do not apply to it.
            </p>
          ) : null}
          {ignored.length > 0 ? (
            <p role="alert" className="field-error">
              Ignored a filter that was not valid: {ignored.join(", ")}.
            </p>
          ) : null}
        </>
      }
    >
      <div>
        <label className="label" htmlFor="f-from">
          From
        </label>
        <input id="f-from" className="input" type="date" name="from" defaultValue={filters.from ?? ""} />
      </div>
      <div>
        <label className="label" htmlFor="f-to">
          To
        </label>
        <input id="f-to" className="input" type="date" name="to" defaultValue={filters.to ?? ""} />
      </div>
      <FilterSelect
        id="f-pack"
        label="Tool used"
        name="pack"
        value={filters.pack ?? ""}
        options={PACK_OPTIONS}
      />
      <FilterSelect
        id="f-outcome"
        label="Outcome"
        name="outcome"
        value={filters.outcome ?? ""}
        options={OUTCOME_OPTIONS}
      />
      <FilterSelect
        id="f-channel"
        label="Channel"
        name="channel"
        value={filters.channel ?? ""}
        options={CHANNEL_OPTIONS}
      />
      <FilterSelect
        id="f-rating"
        label="Rating"
        name="rating"
        value={filters.rating ?? ""}
        options={RATING_OPTIONS}
      />
      <FilterSelect
        id="f-scope"
        label="An answer that"
        name="scope"
        value={filters.scope ?? ""}
        options={SCOPE_OPTIONS}
      />
      <InputField
        id="f-q"
        className="sm:col-span-2"
        label="Search messages"
        help={'Any part of a word, accents ignored; "quotes" for a phrase, -word to leave out.'}
        type="search"
        name="q"
        maxLength={200}
        defaultValue={filters.q ?? ""}
      />
    </FilterBar>
  );
}
