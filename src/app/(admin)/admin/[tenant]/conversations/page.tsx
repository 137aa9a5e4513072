import type { Metadata } from "next";
import Link from "next/link";
import { Card, ExportLinks, PageHeader } from "@/components/ui";
import { requireTenant, roleAtLeast } from "@/lib/auth/guard";
import { listConversations } from "@/lib/db/queries/insights-list";
import { ConversationFilters } from "./ConversationFilters";
import { ConversationTable } from "./ConversationTable";
import { exportHref, isFiltered, listQuery, readFilters, type SearchParams } from "./filters";

export const metadata: Metadata = { title: "Conversations" };

const PAGE_SIZE = 25;

export default async function ConversationsPage({
  params,
  searchParams,
}: {
  params: Promise<{ tenant: string }>;
  searchParams: Promise<SearchParams>;
}) {
  const { tenant: slug } = await params;
  const ctx = await requireTenant(slug);
  const sp = await searchParams;
  const { filters, ignored } = readFilters(sp);
  const cursor = typeof sp.cursor === "string" ? sp.cursor : null;
  const page = await ctx.db.forTenant(ctx.tenant.id, (tx) =>
    listConversations(tx, ctx.tenant.id, filters, { cursor, limit: PAGE_SIZE }),
  );
  const base = `/admin/${ctx.tenant.slug}/conversations`;
  const filtered = isFiltered(filters);
  const canExport = roleAtLeast(ctx.role, "admin");

  return (
    <div className="max-w-6xl space-y-6">
      <PageHeader
        title="Conversations"
        description={`What visitors asked, what the bot answered, and which tools it used. Newest activity first; times in ${ctx.tenant.timeZone.replaceAll("_", " ")}.`}
        actions={
          canExport ? <ExportLinks href={(format) => exportHref(ctx.tenant.slug, filters, format)} /> : null
        }
      />
      {sp.deleted === "1" ? (
        <p role="status" className="card text-sm">
          The conversation was deleted.
        </p>
      ) : null}

      <ConversationFilters
        action={base}
        filters={filters}
        filtered={filtered}
        ignored={ignored}
        canExport={canExport}
      />

      <Card id="list">
        {page.items.length === 0 ? (
          <p className="muted">
            {cursor
              ? "No older conversations."
              : filtered
                ? "No conversation matches these filters."
                : "No conversations yet."}
          </p>
        ) : (
          <ConversationTable items={page.items} base={base} tz={ctx.tenant.timeZone} />
        )}
        <nav aria-label="Conversation pages" className="mt-4 flex gap-3">
          {cursor ? (
            <Link className="btn btn-secondary" href={`${base}${listQuery(filters)}`}>
              Newest
            </Link>
          ) : null}
          {page.nextCursor ? (
            <Link
              className="btn btn-secondary"
              href={`${base}${listQuery(filters, { cursor: page.nextCursor })}`}
            >
              Older conversations
            </Link>
          ) : null}
        </nav>
      </Card>
    </div>
  );
}
