/** The header both source tables share (website pages and documents): what it is, its state, its passages. */
export function SourceTableHead({ first, canEdit }: { first: string; canEdit: boolean }) {
  return (
    <thead>
      <tr className="border-b border-[var(--border)]">
        <th scope="col" className="py-2 pr-3">
          {first}
        </th>
        <th scope="col" className="py-2 pr-3">
          State
        </th>
        <th scope="col" className="py-2 pr-3">
          Passages
        </th>
        {canEdit ? (
          <th scope="col" className="py-2">
            <span className="sr-only">Actions</span>
          </th>
        ) : null}
      </tr>
    </thead>
  );
}
