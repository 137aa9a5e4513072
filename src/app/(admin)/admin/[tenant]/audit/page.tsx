import type { Metadata } from "next";
import Link from "next/link";
import { Card, PageHeader } from "@/components/ui";
import { When } from "@/components/ui/When";
import { requireTenant } from "@/lib/auth/guard";
import { listAudit } from "@/lib/db/queries/audit";
import { listMembers } from "@/lib/db/queries/members";
import { actionLabel, detailLines, targetLabel } from "@/lib/insights/audit-words";

export const metadata: Metadata = { title: "Audit log" };

const PAGE_SIZE = 50;

export default async function AuditPage({
  params,
  searchParams,
}: {
  params: Promise<{ tenant: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const { tenant: slug } = await params;
  const ctx = await requireTenant(slug);
  const sp = await searchParams;
  const before = typeof sp.before === "string" ? sp.before : null;
  // The cursor is looked up inside the tenant's transaction: an id from another tenant finds no row.
  const { page, members } = await ctx.db.forTenant(ctx.tenant.id, async (tx) => ({
    page: await listAudit(tx, { before, limit: PAGE_SIZE }),
    // Details name people by id: today's members are shown by name (or e-mail), anyone else by a short reference.
    members: await listMembers(tx, ctx.tenant.id),
  }));
  const words = {
    people: new Map(members.map((m) => [m.userId, m.name.trim() || m.email])),
    tz: ctx.tenant.timeZone,
  };
  const base = `/admin/${ctx.tenant.slug}/audit`;
  return (
    <div className="max-w-5xl space-y-6">
      <PageHeader
        title="Audit log"
        description="Who changed what, newest first. Secret values are never recorded."
      />
      <Card id="entries">
        {page.entries.length === 0 ? (
          <p className="muted">{before ? "No older entries." : "Nothing has been changed yet."}</p>
        ) : (
          <table className="w-full text-left text-sm">
            <caption className="sr-only">Audit entries, newest first</caption>
            <thead>
              <tr className="border-b border-[var(--border)]">
                <th scope="col" className="py-2 pr-3">
                  When
                </th>
                <th scope="col" className="py-2 pr-3">
                  Who
                </th>
                <th scope="col" className="py-2 pr-3">
                  What
                </th>
                <th scope="col" className="py-2 pr-3">
                  Target
                </th>
                <th scope="col" className="py-2">
                  Details
                </th>
              </tr>
            </thead>
            <tbody>
              {page.entries.map((e) => (
                <tr key={e.id} className="border-b border-[var(--border)] align-top">
                  <td className="py-2 pr-3 whitespace-nowrap">
                    <When at={e.createdAt} tz={ctx.tenant.timeZone} seconds />
                  </td>
                  <td className="py-2 pr-3">{e.actorLabel || "system"}</td>
                  <td className="py-2 pr-3">{actionLabel(e.action)}</td>
                  <td className="py-2 pr-3 break-words">{targetLabel(e.target, e.details)}</td>
                  <td className="py-2">
                    {Object.keys(e.details).length > 0 ? (
                      <dl className="grid grid-cols-[auto_1fr] gap-x-2">
                        {detailLines(e.details, words).map((d) => (
                          <div key={d.key} className="contents">
                            <dt className="muted">{d.label}:</dt>
                            <dd className="break-words">{d.text}</dd>
                          </div>
                        ))}
                      </dl>
                    ) : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        <nav aria-label="Audit log pages" className="mt-4 flex gap-3">
          {before ? (
            <Link className="btn btn-secondary" href={base}>
              Newest entries
            </Link>
          ) : null}
          {page.nextCursor ? (
            <Link className="btn btn-secondary" href={`${base}?before=${page.nextCursor}`}>
              Older entries
            </Link>
          ) : null}
        </nav>
      </Card>
    </div>
  );
}
