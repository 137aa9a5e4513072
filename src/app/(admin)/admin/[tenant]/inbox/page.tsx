import type { Metadata } from "next";
import Link from "next/link";
import { Card, ExportLinks, PageHeader } from "@/components/ui";
import { requireTenant, roleAtLeast } from "@/lib/auth/guard";
import { listLeads, visibleConversations } from "@/lib/db/queries/leads";
import { setLeadStatusAction } from "./actions";
import { inboxQuery, isFiltered, readFilters, readPage, type SearchParams } from "./filters";
import { InboxFilters } from "./InboxFilters";
import { LeadCard } from "./LeadCard";

export const metadata: Metadata = { title: "Inbox" };

const PAGE_SIZE = 25;

export default async function InboxPage({
  params,
  searchParams,
}: {
  params: Promise<{ tenant: string }>;
  searchParams: Promise<SearchParams>;
}) {
  const { tenant: slug } = await params;
  const ctx = await requireTenant(slug);
  const sp = await searchParams;
  const filters = readFilters(sp);
  const page = readPage(sp);
  const { items, more, talks } = await ctx.db.forTenant(ctx.tenant.id, async (tx) => {
    const list = await listLeads(tx, ctx.tenant.id, filters, { limit: PAGE_SIZE, offset: page * PAGE_SIZE });
    const ids = list.items.flatMap((l) => (l.conversationId ? [l.conversationId] : []));
    return { ...list, talks: await visibleConversations(tx, ctx.tenant.id, ids) };
  });
  const base = `/admin/${ctx.tenant.slug}/inbox`;
  const canEdit = roleAtLeast(ctx.role, "admin");
  const filtered = isFiltered(filters);
  const action = setLeadStatusAction.bind(null, ctx.tenant.slug);

  return (
    <div className="max-w-5xl space-y-6">
      <PageHeader
        title="Inbox"
        description={`Visitors who asked for a person, and hand-offs the assistant offered. Newest first; times in ${ctx.tenant.timeZone.replaceAll("_", " ")}.`}
        actions={
          <>
            <Link className="btn" href={`${base}/live`}>
              Live chat
            </Link>
            {canEdit ? (
              <ExportLinks href={(format) => `/api/admin/${ctx.tenant.slug}/inbox/export?format=${format}`} />
            ) : null}
          </>
        }
      />

      <InboxFilters action={base} filters={filters} filtered={filtered} canExport={canEdit} />

      {items.length === 0 ? (
        <Card id="list">
          <p className="muted">{filtered ? "No request matches these filters." : "No requests yet."}</p>
        </Card>
      ) : (
        <ol className="space-y-4" aria-label="Requests">
          {items.map((l) => (
            <LeadCard
              key={l.id}
              lead={l}
              talk={l.conversationId ? talks.get(l.conversationId) : undefined}
              tenantSlug={ctx.tenant.slug}
              action={action}
              canEdit={canEdit}
              tz={ctx.tenant.timeZone}
            />
          ))}
        </ol>
      )}
      <nav aria-label="Inbox pages" className="flex gap-3">
        {page > 0 ? (
          <Link className="btn btn-secondary" href={`${base}${inboxQuery(filters, page - 1)}`}>
            Newer
          </Link>
        ) : null}
        {more ? (
          <Link className="btn btn-secondary" href={`${base}${inboxQuery(filters, page + 1)}`}>
            Older
          </Link>
        ) : null}
      </nav>
    </div>
  );
}
