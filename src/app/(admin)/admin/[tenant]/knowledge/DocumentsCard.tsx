import { Card } from "@/components/ui";
import type { loadKnowledgeView } from "@/lib/knowledge/views";
import { deleteDocumentAction } from "./actions";
import { ActionButton, UploadDocumentForm } from "./KnowledgeForms";
import { documentState, mb } from "./reasons";
import { SourceTableHead } from "./SourceTableHead";

type KnowledgeView = Awaited<ReturnType<typeof loadKnowledgeView>>;

/** Uploaded documents with their state, the business's storage use, and the upload form. */
export function DocumentsCard({
  view,
  slug: s,
  canEdit,
}: {
  view: KnowledgeView;
  slug: string;
  canEdit: boolean;
}) {
  return (
    <Card
      id="documents"
      title="Your documents"
      description={`PDF, DOCX, Markdown and plain text; at most 20 MB a file. ${mb(view.uploadUse.used)} of ${mb(view.uploadUse.quota)} used.`}
    >
      {view.uploads.some((d) => d.status !== "indexed" && d.status !== "failed") ? (
        <meta httpEquiv="refresh" content="3" />
      ) : null}
      {view.uploads.length === 0 ? (
        <p className="text-sm muted">No documents yet.</p>
      ) : (
        <table className="w-full text-left text-sm">
          <caption className="sr-only">Your documents</caption>
          <SourceTableHead first="Document" canEdit={canEdit} />
          <tbody>
            {view.uploads.map((d) => (
              <tr key={d.id} className="border-b border-[var(--border)] align-top">
                <td className="break-all py-2 pr-3">
                  {d.fileName} <span className="muted">· {mb(d.byteSize)}</span>
                </td>
                <td className="py-2 pr-3" data-testid="document-state">
                  {documentState(d.status, d.reason)}
                </td>
                <td className="py-2 pr-3">{d.chunks}</td>
                {canEdit ? (
                  <td className="py-2">
                    <ActionButton
                      action={deleteDocumentAction.bind(null, s)}
                      fields={{ documentId: d.id }}
                      label="Delete"
                      pendingText="Deleting…"
                      variant="danger"
                      ariaLabel={`Delete ${d.fileName}`}
                    />
                  </td>
                ) : null}
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {canEdit ? (
        <div className="mt-4">
          <UploadDocumentForm uploadUrl={`/api/admin/${s}/knowledge/upload`} />
        </div>
      ) : null}
    </Card>
  );
}
