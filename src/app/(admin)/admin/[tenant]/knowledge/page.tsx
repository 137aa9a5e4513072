import type { Metadata } from "next";
import Link from "next/link";
import { Card, PageHeader } from "@/components/ui";
import { When } from "@/components/ui/When";
import { requireTenant, roleAtLeast } from "@/lib/auth/guard";
import { askTestQuestion, loadKnowledgeView } from "@/lib/knowledge/views";
import {
  addAnswerAction,
  deleteAnswerAction,
  deleteDocumentAction,
  excludePageAction,
  resyncAction,
  updateAnswerAction,
} from "./actions";
import { ActionButton, AnswerForm, UploadDocumentForm } from "./KnowledgeForms";
import { TestResult } from "./TestResult";

export const metadata: Metadata = { title: "Knowledge" };

const REASONS: Record<string, string> = {
  robots: "robots.txt",
  noindex: "noindex",
  duplicate: "duplicate",
  too_large: "too large",
  off_domain: "off your domains",
  excluded: "excluded",
  not_html: "not a page",
  empty: "no text",
};

// A document's state: "failed" keeps its reason as "<kind>: <message>".
const DOC_FAILURES: Record<string, string> = {
  too_large: "too large",
  zip_bomb: "zip bomb",
  unsupported_type: "not a supported type",
  unreadable: "unreadable",
  empty: "no text",
};

function documentState(status: string | null, reason: string | null): string {
  if (status === "indexed") return "indexed";
  if (status !== "failed") return "processing";
  const [kind, ...rest] = (reason ?? "unreadable").split(": ");
  return `failed: ${DOC_FAILURES[kind ?? ""] ?? kind}${rest.length ? ` (${rest.join(": ")})` : ""}`;
}

const mb = (n: number) => `${Math.round((n / 1024 / 1024) * 10) / 10} MB`;

function one(v: string | string[] | undefined): string {
  return (Array.isArray(v) ? v[0] : v)?.slice(0, 200) ?? "";
}

export default async function KnowledgePage({
  params,
  searchParams,
}: {
  params: Promise<{ tenant: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const { tenant: slug } = await params;
  const sp = await searchParams;
  const ctx = await requireTenant(slug);
  const canEdit = roleAtLeast(ctx.role, "admin");
  const q = one(sp.q);
  const ask = one(sp.ask).trim();
  // "Write the answer" on Unanswered questions opens this page with the visitor's question filled in.
  const question = one(sp.question).trim();
  const view = await loadKnowledgeView(ctx, { search: q });
  const test = ask ? await askTestQuestion(ctx, ask) : null;
  const s = ctx.tenant.slug;
  const src = view.source;
  const c = view.counts;
  const running = src && src.syncState !== "idle";
  const found = c ? c.pending + c.indexed + c.skipped + c.failed : 0;
  return (
    <div className="max-w-5xl space-y-6">
      {running ? <meta httpEquiv="refresh" content="3" /> : null}
      <PageHeader
        title="Knowledge"
        description="What the assistant knows from your own website and the answers you wrote. The website is set up on the Tools page (Your website and documents)."
      />
      <Card id="website" title="Your website">
        {!src ? (
          <p className="text-sm">
            No website yet. Turn on{" "}
            <Link href={`/admin/${s}/tools`} className="underline">
              Your website and documents
            </Link>{" "}
            on the Tools page and give it your start page or sitemap.
          </p>
        ) : (
          <div className="space-y-3 text-sm">
            <p className="break-all">
              <span className="muted">{src.sitemapUrl ? "Sitemap" : "Start page"}:</span>{" "}
              {src.sitemapUrl ?? src.startUrl}
            </p>
            <dl className="grid grid-cols-2 gap-2 sm:grid-cols-4" aria-label="Pages">
              <div>
                <dt className="muted">Found</dt>
                <dd data-testid="count-found">{found}</dd>
              </div>
              <div>
                <dt className="muted">Indexed</dt>
                <dd data-testid="count-indexed">{c?.indexed ?? 0}</dd>
              </div>
              <div>
                <dt className="muted">Skipped</dt>
                <dd data-testid="count-skipped">
                  {c?.skipped ?? 0}
                  {c && c.skipped > 0 ? (
                    <span className="muted">
                      {" "}
                      (
                      {Object.entries(c.byReason)
                        .filter(([r]) => REASONS[r])
                        .map(([r, n]) => `${n} ${REASONS[r]}`)
                        .join(", ")}
                      )
                    </span>
                  ) : null}
                </dd>
              </div>
              <div>
                <dt className="muted">Failed</dt>
                <dd data-testid="count-failed">{c?.failed ?? 0}</dd>
              </div>
            </dl>
            {running ? (
              <div>
                <p role="status">
                  Syncing: {src.runDone} of {src.runQueued || "?"} pages
                </p>
                <progress
                  max={Math.max(1, src.runQueued)}
                  value={src.runDone}
                  className="w-full"
                  aria-label="Sync progress"
                />
              </div>
            ) : (
              <p role="status" data-testid="sync-state">
                Up to date
              </p>
            )}
            <p>
              <span className="muted">Last sync:</span>{" "}
              <span data-testid="last-sync">
                {src.lastSyncAt ? <When at={src.lastSyncAt} seconds /> : "never"}
              </span>
              {" · "}
              <span className="muted">Next:</span>{" "}
              {src.nextSyncAt ? <When at={src.nextSyncAt} /> : "only when you ask"}
            </p>
            {src.runOverCap > 0 ? (
              <p>
                The page cap ({src.pageCap}) left {src.runOverCap} more pages out.
              </p>
            ) : null}
            {src.lastSyncError ? <p className="field-error">{src.lastSyncError}</p> : null}
            {canEdit ? (
              <ActionButton
                action={resyncAction.bind(null, s)}
                fields={{}}
                label="Re-sync now"
                pendingText="Starting…"
              />
            ) : null}
          </div>
        )}
      </Card>
      <Card
        id="test"
        title="Ask a test question"
        description="The passages the assistant would get, ranked, and exactly what it would receive."
      >
        <form method="get" className="flex gap-2">
          <input type="hidden" name="q" value={q} />
          <label htmlFor="ask" className="sr-only">
            Test question
          </label>
          <input
            id="ask"
            name="ask"
            className="input flex-1"
            defaultValue={ask}
            placeholder="Do you have parking?"
          />
          <button type="submit" className="btn">
            Ask
          </button>
        </form>
        {test ? <TestResult test={test} /> : null}
      </Card>
      {src ? (
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
            <thead>
              <tr className="border-b border-[var(--border)]">
                <th scope="col" className="py-2 pr-3">
                  Page
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
      ) : null}
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
            <thead>
              <tr className="border-b border-[var(--border)]">
                <th scope="col" className="py-2 pr-3">
                  Document
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
      <Card
        id="answers"
        title="Your answers"
        description="Written by you; when a visitor asks one of these questions, the assistant gets your answer first."
      >
        {view.answers.length === 0 ? (
          <p className="text-sm muted">No answers yet.</p>
        ) : (
          <ul className="space-y-3 text-sm">
            {view.answers.map((a) => (
              <li key={a.id} className="rounded border border-[var(--border)] p-2">
                <p className="font-medium">{a.questions.join(" · ")}</p>
                <p>{a.answer}</p>
                {canEdit ? (
                  <details className="mt-2">
                    <summary className="cursor-pointer text-sm underline">
                      Edit<span className="sr-only"> the answer to {a.questions[0]}</span>
                    </summary>
                    <div className="mt-2">
                      <AnswerForm
                        action={updateAnswerAction.bind(null, s)}
                        idPrefix={`answer-${a.id}`}
                        answerId={a.id}
                        initial={{ questions: a.questions.join("\n"), answer: a.answer, lang: a.lang }}
                        submitLabel="Save changes"
                      />
                    </div>
                  </details>
                ) : null}
                {canEdit ? (
                  <ActionButton
                    action={deleteAnswerAction.bind(null, s)}
                    fields={{ answerId: a.id }}
                    label="Delete"
                    pendingText="Deleting…"
                    variant="danger"
                    ariaLabel={`Delete the answer to ${a.questions[0]}`}
                  />
                ) : null}
              </li>
            ))}
          </ul>
        )}
        {canEdit ? (
          <div className="mt-4">
            <AnswerForm
              key={question}
              action={addAnswerAction.bind(null, s)}
              idPrefix="answer"
              initial={question ? { questions: question } : undefined}
              submitLabel="Save answer"
            />
          </div>
        ) : null}
      </Card>
    </div>
  );
}
