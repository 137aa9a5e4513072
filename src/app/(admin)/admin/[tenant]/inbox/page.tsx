import type { Metadata } from "next";
import Link from "next/link";
import { Card, FilterActions, InputField, PageHeader } from "@/components/ui";
import { requireTenant, roleAtLeast } from "@/lib/auth/guard";
import { type InboxFilters, listLeads, visibleConversations } from "@/lib/db/queries/leads";
import { mailtoHref, telHref } from "@/shared/contact";
import { When } from "../conversations/display";
import { setLeadStatusAction } from "./actions";
import { LeadStatusForm } from "./LeadStatusForm";

export const metadata: Metadata = { title: "Inbox" };

type SearchParams = Record<string, string | string[] | undefined>;

const one = (v: string | string[] | undefined) => (typeof v === "string" ? v : "");

function readFilters(sp: SearchParams): InboxFilters {
  const status = one(sp.status);
  const kind = one(sp.kind);
  return {
    status: status === "new" || status === "handled" ? status : "",
    kind: kind === "lead" || kind === "handoff" ? kind : "",
    q: one(sp.q).slice(0, 200),
  };
}

const KIND_LABEL = { lead: "Contact request", handoff: "Hand-off offered, no details left" } as const;

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
  const page = Math.max(0, Math.min(1000, Number.parseInt(one(sp.page), 10) || 0));
  const limit = 25;
  const { items, more, talks } = await ctx.db.forTenant(ctx.tenant.id, async (tx) => {
    const list = await listLeads(tx, ctx.tenant.id, filters, { limit, offset: page * limit });
    const ids = list.items.flatMap((l) => (l.conversationId ? [l.conversationId] : []));
    return { ...list, talks: await visibleConversations(tx, ctx.tenant.id, ids) };
  });
  const base = `/admin/${ctx.tenant.slug}/inbox`;
  const canEdit = roleAtLeast(ctx.role, "admin");
  const filtered = Boolean(filters.status || filters.kind || filters.q);
  const query = (extra: Record<string, string>) => {
    const p = new URLSearchParams();
    for (const [k, v] of Object.entries({ ...filters, ...extra })) if (v) p.set(k, String(v));
    const s = p.toString();
    return s ? `?${s}` : "";
  };
  const action = setLeadStatusAction.bind(null, ctx.tenant.slug);

  return (
    <div className="max-w-5xl space-y-6">
      <PageHeader
        title="Inbox"
        description="Visitors who asked for a person, and hand-offs the assistant offered. Newest first; times in UTC."
        actions={
          canEdit ? (
            <>
              <a
                className="btn btn-secondary"
                href={`/api/admin/${ctx.tenant.slug}/inbox/export?format=csv`}
                download
              >
                Export CSV
              </a>
              <a
                className="btn btn-secondary"
                href={`/api/admin/${ctx.tenant.slug}/inbox/export?format=json`}
                download
              >
                Export JSON
              </a>
            </>
          ) : null
        }
      />

      <Card id="filters" title="Filter">
        <form method="get" action={base} className="grid gap-3 sm:grid-cols-[1fr_1fr_2fr_auto]">
          <div>
            <label className="label" htmlFor="i-status">
              Status
            </label>
            <select id="i-status" className="input" name="status" defaultValue={filters.status}>
              <option value="">Any</option>
              <option value="new">New</option>
              <option value="handled">Handled</option>
            </select>
          </div>
          <div>
            <label className="label" htmlFor="i-kind">
              Kind
            </label>
            <select id="i-kind" className="input" name="kind" defaultValue={filters.kind}>
              <option value="">Any</option>
              <option value="lead">{KIND_LABEL.lead}</option>
              <option value="handoff">{KIND_LABEL.handoff}</option>
            </select>
          </div>
          <InputField
            id="i-q"
            label="Search"
            help="Name, e-mail, phone or message."
            type="search"
            name="q"
            maxLength={200}
            defaultValue={filters.q}
          />
          <FilterActions clearHref={base} filtered={filtered} />
        </form>
        {canEdit ? (
          <p className="help">
            Export takes every request of the last 30 days (add from= and to= for others).
          </p>
        ) : null}
      </Card>

      {items.length === 0 ? (
        <Card id="list">
          <p className="muted">{filtered ? "No request matches these filters." : "No requests yet."}</p>
        </Card>
      ) : (
        <ol className="space-y-4" aria-label="Requests">
          {items.map((l) => {
            const talk = l.conversationId ? talks.get(l.conversationId) : undefined;
            return (
              <li key={l.id} className="card space-y-3" aria-labelledby={`lead-${l.id}`}>
                <div className="flex flex-wrap items-baseline justify-between gap-2">
                  <h2 id={`lead-${l.id}`} className="font-semibold">
                    {l.name || l.email || l.phone || KIND_LABEL[l.kind]}
                  </h2>
                  <span className="text-xs muted">
                    <When at={l.createdAt} /> · {KIND_LABEL[l.kind]} ·{" "}
                    {l.source === "assistant" ? "offered by the assistant" : "from the chat menu"}
                  </span>
                </div>
                <p>
                  <span
                    className={`inline-block rounded-full border px-2 py-0.5 text-xs font-medium ${
                      l.status === "new" ? "border-brand-500 text-brand-700 dark:text-brand-500" : "muted"
                    }`}
                  >
                    {l.status === "new" ? "New" : "Handled"}
                  </span>
                  {l.status === "handled" && l.handledAt ? (
                    <span className="ml-2 text-xs muted">
                      by {l.handledByLabel || "a former member"} on <When at={l.handledAt} />
                    </span>
                  ) : null}
                </p>
                {l.mailStatus === "failed" ? (
                  <p className="rounded-lg border border-danger-600/40 bg-danger-600/10 px-3 py-2 text-sm">
                    The notification mail about this request could not be sent
                    {l.mailError ? ` (${l.mailError})` : ""}. It is tried again automatically for about an
                    hour.
                  </p>
                ) : null}
                {l.kind === "lead" ? (
                  <dl className="grid gap-x-6 gap-y-1 text-sm sm:grid-cols-[auto_1fr]">
                    <dt className="muted">E-mail</dt>
                    <dd className="break-all">
                      {l.email ? <a href={mailtoHref(l.email)}>{l.email}</a> : "—"}
                    </dd>
                    <dt className="muted">Phone</dt>
                    <dd>{l.phone ? <a href={telHref(l.phone)}>{l.phone}</a> : "—"}</dd>
                    <dt className="muted">Message</dt>
                    <dd className="whitespace-pre-wrap break-words">{l.message}</dd>
                    <dt className="muted">Language</dt>
                    <dd>{l.locale || "not given"}</dd>
                    <dt className="muted">Consent</dt>
                    <dd className="text-xs">{l.consentText || "—"}</dd>
                  </dl>
                ) : (
                  <p className="text-sm muted">The visitor has not left contact details.</p>
                )}
                {l.conversationId ? (
                  <details>
                    <summary className="cursor-pointer text-sm font-medium">
                      The conversation as the visitor saw it ({talk?.length ?? 0} messages)
                    </summary>
                    <ol className="mt-2 space-y-2 text-sm">
                      {(talk ?? []).map((m, i) => (
                        // biome-ignore lint/suspicious/noArrayIndexKey: the list is static and ordered
                        <li key={i} className={m.role === "user" ? "text-right" : ""}>
                          <span className="font-semibold">{m.role === "user" ? "Visitor" : "Bot"}: </span>
                          <span className="whitespace-pre-wrap break-words">{m.content}</span>
                        </li>
                      ))}
                    </ol>
                    <Link
                      className="mt-2 inline-block text-sm underline"
                      href={`/admin/${ctx.tenant.slug}/conversations/${l.conversationId}`}
                    >
                      Open the full transcript
                    </Link>
                  </details>
                ) : (
                  <p className="text-sm muted">
                    Sent before any chat message (or the conversation was deleted).
                  </p>
                )}
                <LeadStatusForm
                  id={l.id}
                  handled={l.status === "handled"}
                  action={action}
                  readOnly={!canEdit}
                />
              </li>
            );
          })}
        </ol>
      )}
      <nav aria-label="Inbox pages" className="flex gap-3">
        {page > 0 ? (
          <Link className="btn btn-secondary" href={`${base}${query({ page: String(page - 1) })}`}>
            Newer
          </Link>
        ) : null}
        {more ? (
          <Link className="btn btn-secondary" href={`${base}${query({ page: String(page + 1) })}`}>
            Older
          </Link>
        ) : null}
      </nav>
    </div>
  );
}
