import Link from "next/link";

/** The end of a list page's filter form: Apply, and Clear (back to the whole list) once a filter is set. */
export function FilterActions({ clearHref, filtered }: { clearHref: string; filtered: boolean }) {
  return (
    <div className="flex items-end gap-2 pb-6">
      <button type="submit" className="btn">
        Apply
      </button>
      {filtered ? (
        <Link className="btn btn-secondary" href={clearHref}>
          Clear
        </Link>
      ) : null}
    </div>
  );
}
