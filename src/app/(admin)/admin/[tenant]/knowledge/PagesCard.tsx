import { Card } from "@/components/ui";
import type { loadKnowledgeView } from "@/lib/knowledge/views";
import { excludePageAction } from "./actions";
import { ActionButton } from "./KnowledgeForms";
import { REASONS } from "./reasons";
import { SourceTableHead } from "./SourceTableHead";

type KnowledgeView = Awaited<ReturnType<typeof loadKnowledgeView>>;

/** The website's pages, searchable, each with its state and "exclude this page". */
export function PagesCard({
  view,
  slug: s,
  canEdit,
  q,
}: {
  view: KnowledgeView;
  slug: string;
  canEdit: boolean;
  q: string;
}) {
  if (!view.source) return null;
  return (
    <Card id="pages" title="Pages">
      <form method="get" className="mb-3 flex gap-2">
        <label htmlFor="page-search" className="sr-only">
          Search pages
        </label>
        <input
          id="page-search"
          name="q"
          className="input flex-1"
          defaultValue={q}
          placeholder="Part of an address"
        />
        <button type="submit" className="btn">
          Search
        </button>
      </form>
      <table className="w-full text-left text-sm">
        <caption className="sr-only">Pages of your website</caption>
        <SourceTableHead first="Page" canEdit={canEdit} />
        <tbody>
          {view.pages.map((p) => (
            <tr key={p.id} className="border-b border-[var(--border)] align-top">
              <td className="break-all py-2 pr-3">
                {p.title ? <div>{p.title}</div> : null}
                <span className="muted">{p.url}</span>
              </td>
              <td className="py-2 pr-3">
                {p.status}
                {p.reason ? ` (${REASONS[p.reason] ?? p.reason})` : ""}
                {p.status === "failed" && p.httpStatus ? ` HTTP ${p.httpStatus}` : ""}
              </td>
              <td className="py-2 pr-3">{p.chunks}</td>
              {canEdit ? (
                <td className="py-2">
                  <ActionButton
                    action={excludePageAction.bind(null, s)}
                    fields={{ pageId: p.id, excluded: p.excluded ? "false" : "true" }}
                    label={p.excluded ? "Include" : "Exclude"}
                    pendingText="Saving…"
                    ariaLabel={`${p.excluded ? "Include" : "Exclude"} ${p.url}`}
                  />
                </td>
              ) : null}
            </tr>
          ))}
        </tbody>
      </table>
    </Card>
  );
}
