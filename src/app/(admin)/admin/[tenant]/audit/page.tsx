import type { Metadata } from "next";
import Link from "next/link";
import { Card, PageHeader } from "@/components/ui";
import { When } from "@/components/ui/When";
import { requireTenant } from "@/lib/auth/guard";
import { listAudit } from "@/lib/db/queries/audit";
import { actionLabel, targetLabel } from "@/lib/insights/audit-words";

export const metadata: Metadata = { title: "Audit log" };

const PAGE_SIZE = 50;

function detailText(value: unknown): string {
  if (Array.isArray(value)) return value.map(detailText).join(", ");
  if (value && typeof value === "object")
    return Object.entries(value)
      .map(([k, v]) => `${k} ${detailText(v)}`)
      .join(", ");
  return String(value);
}

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
  const page = await ctx.db.forTenant(ctx.tenant.id, (tx) => listAudit(tx, { before, limit: PAGE_SIZE }));
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
                  <td className="py-2 pr-3 break-all">{targetLabel(e.target, e.details)}</td>
                  <td className="py-2">
                    {Object.keys(e.details).length > 0 ? (
                      <dl className="grid grid-cols-[auto_1fr] gap-x-2">
                        {Object.entries(e.details).map(([k, v]) => (
                          <div key={k} className="contents">
                            <dt className="muted">{k}</dt>
                            <dd>{detailText(v)}</dd>
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
