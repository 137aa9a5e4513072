import type { Metadata } from "next";
import { Card, PageHeader } from "@/components/ui";
import { requireTenant, roleAtLeast } from "@/lib/auth/guard";
import { isAppError } from "@/lib/errors";
import { KIND_LABELS } from "@/lib/privacy/export-html";
import { findVisitor, type VisitorSummary } from "@/lib/privacy/find";
import { VISITOR_HANDLES, type VisitorQuery, visitorQuerySchema } from "@/lib/privacy/identify";
import { eraseVisitorAction } from "./actions";
import { EraseVisitorForm } from "./EraseVisitorForm";

export const metadata: Metadata = { title: "Visitor data" };

// A visitor's request to see or erase what the business holds about them (GDPR articles 15 and 17). Admins and
// owners only: a viewer may read conversations one by one, but never take a person's whole record out or
// delete it. The search is a GET form so the result can be reloaded; the erasure is a server action.

const HANDLE_LABELS: Record<VisitorQuery["by"], string> = {
  email: "E-mail address",
  phone: "Phone number",
  verified: "Verified visitor id (your site's user id)",
  conversation: "Conversation id or link",
};

type Search = { by?: string; value?: string; erased?: string };

async function search(
  ctx: Awaited<ReturnType<typeof requireTenant>>,
  q: VisitorQuery | null,
): Promise<VisitorSummary | { error: string } | null> {
  if (!q) return null;
  try {
    return await findVisitor(ctx, q);
  } catch (e) {
    if (isAppError(e) && e.code === "invalid_input") return { error: e.message };
    throw e;
  }
}

function SearchForm({ q }: { q: VisitorQuery | null }) {
  return (
    <form method="get" className="grid gap-3 sm:grid-cols-[1fr_2fr_auto]">
      <div>
        <label className="label" htmlFor="v-by">
          Find by
        </label>
        <select id="v-by" className="input" name="by" defaultValue={q?.by ?? "email"}>
          {VISITOR_HANDLES.map((h) => (
            <option key={h} value={h}>
              {HANDLE_LABELS[h]}
            </option>
          ))}
        </select>
      </div>
      <div>
        <label className="label" htmlFor="v-value">
          Looking for
        </label>
        <input id="v-value" className="input" name="value" maxLength={500} defaultValue={q?.value ?? ""} />
      </div>
      <div className="flex items-end">
        <button type="submit" className="btn">
          Find
        </button>
      </div>
    </form>
  );
}

function Found({ slug, q, summary }: { slug: string; q: VisitorQuery; summary: VisitorSummary }) {
  const params = new URLSearchParams({ by: q.by, value: q.value });
  const href = (format: string) => `/api/admin/${slug}/privacy/export?${params}&format=${format}`;
  return (
    <>
      <Card id="visitor-found" title="What is stored">
        <table className="text-sm">
          <tbody>
            {Object.entries(summary.counts).map(([t, n]) => (
              <tr key={t}>
                <th scope="row" className="pr-6 text-left font-normal">
                  {KIND_LABELS[t] ?? t}
                </th>
                <td className="text-right tabular-nums">{n}</td>
              </tr>
            ))}
          </tbody>
        </table>
        <p className="mt-4 flex flex-wrap gap-2 text-sm">
          <a className="btn btn-secondary" href={href("html")}>
            Download as a page (HTML)
          </a>
          <a className="btn btn-secondary" href={href("json")}>
            Download as data (JSON)
          </a>
        </p>
      </Card>
      <Card id="visitor-erase" title="Erase">
        <EraseVisitorForm by={q.by} value={q.value} action={eraseVisitorAction.bind(null, slug)} />
      </Card>
    </>
  );
}

export default async function VisitorDataPage({
  params,
  searchParams,
}: {
  params: Promise<{ tenant: string }>;
  searchParams: Promise<Search>;
}) {
  const { tenant: slug } = await params;
  const ctx = await requireTenant(slug);
  const sp = await searchParams;
  const canUse = roleAtLeast(ctx.role, "admin");
  const parsed = visitorQuerySchema.safeParse({ by: sp.by, value: sp.value });
  const q = canUse && parsed.success ? parsed.data : null;
  const result = await search(ctx, q);
  return (
    <div className="max-w-3xl space-y-6">
      <PageHeader
        title="Visitor data"
        description="When a visitor asks for a copy of their data or for it to be erased: find them, download it, or erase it."
      />
      {sp.erased ? (
        <p role="status" className="rounded-lg border border-ok-600/40 bg-ok-600/10 px-3 py-2 text-sm">
          Erased {Number(sp.erased) || 0} records. The audit log records that it was done.
        </p>
      ) : null}
      {canUse ? (
        <Card id="visitor-search" title="Find a visitor">
          <SearchForm q={q} />
          {result && "error" in result ? <p className="field-error">{result.error}</p> : null}
          {result && "found" in result && !result.found ? (
            <p className="mt-3 text-sm">Nothing is stored about this visitor.</p>
          ) : null}
        </Card>
      ) : (
        <p className="text-sm">Only an admin or owner can look up, download or erase a visitor's data.</p>
      )}
      {q && result && "found" in result && result.found ? (
        <Found slug={ctx.tenant.slug} q={q} summary={result} />
      ) : null}
    </div>
  );
}
