import type { Metadata } from "next";
import Link from "next/link";
import { Card, FilterActions, InputField, PageHeader } from "@/components/ui";
import { requireTenant, roleAtLeast } from "@/lib/auth/guard";
import {
  type ListFilters,
  listConversations,
  listFiltersSchema,
  OUTCOMES,
} from "@/lib/db/queries/insights-list";
import { ALL_PACKS } from "@/lib/tools/index";
import { formatNumber, OUTCOME_LABELS, OutcomeBadge, packLabel, When } from "./display";
import { RatingFilter } from "./RatingFilter";

export const metadata: Metadata = { title: "Conversations" };

const PAGE_SIZE = 25;
const FILTER_KEYS = ["from", "to", "pack", "outcome", "rating", "q"] as const;

type SearchParams = Record<string, string | string[] | undefined>;

/** Each filter is read on its own, so one bad value drops that filter and says so instead of failing the page. */
function readFilters(sp: SearchParams): { filters: ListFilters; ignored: string[] } {
  const filters: ListFilters = {};
  const ignored: string[] = [];
  for (const key of FILTER_KEYS) {
    const raw = sp[key];
    if (typeof raw !== "string" || raw === "") continue;
    const parsed = listFiltersSchema.shape[key].safeParse(raw);
    if (parsed.success) Object.assign(filters, { [key]: parsed.data });
    else ignored.push(key);
  }
  return { filters, ignored };
}

function query(filters: ListFilters, extra: Record<string, string> = {}): string {
  const p = new URLSearchParams();
  for (const key of FILTER_KEYS) {
    const v = filters[key];
    if (v) p.set(key, v);
  }
  for (const [k, v] of Object.entries(extra)) p.set(k, v);
  const s = p.toString();
  return s ? `?${s}` : "";
}

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
  const filtered = FILTER_KEYS.some((k) => filters[k]);
  const canExport = roleAtLeast(ctx.role, "admin");
  const exportQuery = (format: string) => {
    const p = new URLSearchParams({ format });
    if (filters.from) p.set("from", filters.from);
    if (filters.to) p.set("to", filters.to);
    return `/api/admin/${ctx.tenant.slug}/export?${p}`;
  };

  return (
    <div className="max-w-6xl space-y-6">
      <PageHeader
        title="Conversations"
        description="What visitors asked, what the bot answered, and which tools it used. Newest activity first; times in UTC."
        actions={
          canExport ? (
            <>
              <a className="btn btn-secondary" href={exportQuery("csv")} download>
                Export CSV
              </a>
              <a className="btn btn-secondary" href={exportQuery("json")} download>
                Export JSON
              </a>
            </>
          ) : null
        }
      />
      {sp.deleted === "1" ? (
        <p role="status" className="card text-sm">
          The conversation was deleted.
        </p>
      ) : null}

      <Card id="filters" title="Filter">
        <form
          method="get"
          action={base}
          className="grid gap-3 sm:grid-cols-2 lg:grid-cols-[1fr_1fr_1fr_1fr_1fr_2fr_auto]"
        >
          <div>
            <label className="label" htmlFor="f-from">
              From
            </label>
            <input id="f-from" className="input" type="date" name="from" defaultValue={filters.from ?? ""} />
          </div>
          <div>
            <label className="label" htmlFor="f-to">
              To
            </label>
            <input id="f-to" className="input" type="date" name="to" defaultValue={filters.to ?? ""} />
          </div>
          <div>
            <label className="label" htmlFor="f-pack">
              Tool used
            </label>
            <select id="f-pack" className="input" name="pack" defaultValue={filters.pack ?? ""}>
              <option value="">Any</option>
              {ALL_PACKS.map((p) => (
                <option key={p.id} value={p.id}>
                  {p.label} ({p.id})
                </option>
              ))}
            </select>
          </div>
          <div>
            <label className="label" htmlFor="f-outcome">
              Outcome
            </label>
            <select id="f-outcome" className="input" name="outcome" defaultValue={filters.outcome ?? ""}>
              <option value="">Any</option>
              {OUTCOMES.map((o) => (
                <option key={o} value={o}>
                  {OUTCOME_LABELS[o]}
                </option>
              ))}
            </select>
          </div>
          <RatingFilter value={filters.rating ?? ""} />
          <InputField
            id="f-q"
            label="Search messages"
            help={'Any part of a word, accents ignored; "quotes" for a phrase, -word to leave out.'}
            type="search"
            name="q"
            maxLength={200}
            defaultValue={filters.q ?? ""}
          />
          <FilterActions clearHref={base} filtered={filtered} />
        </form>
        {canExport ? (
          <p className="help">
            Export takes every message of the chosen days (the last 30 days when none are chosen), with its
            tool calls; the other filters do not apply to it.
          </p>
        ) : null}
        {ignored.length > 0 ? (
          <p role="alert" className="field-error">
            Ignored a filter that was not valid: {ignored.join(", ")}.
          </p>
        ) : null}
      </Card>

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
          <div className="overflow-x-auto">
            <table className="w-full text-left text-sm">
              <caption className="sr-only">Conversations, newest activity first</caption>
              <thead>
                <tr className="border-b border-[var(--border)]">
                  <th scope="col" className="py-2 pr-3">
                    Last activity
                  </th>
                  <th scope="col" className="py-2 pr-3">
                    First question
                  </th>
                  <th scope="col" className="py-2 pr-3">
                    Outcome
                  </th>
                  <th scope="col" className="py-2 pr-3">
                    Tools
                  </th>
                  <th scope="col" className="py-2 pr-3 text-right">
                    Messages
                  </th>
                  <th scope="col" className="py-2 text-right">
                    Tokens
                  </th>
                </tr>
              </thead>
              <tbody>
                {page.items.map((c) => (
                  <tr key={c.id} className="border-b border-[var(--border)] align-top">
                    <td className="py-2 pr-3 whitespace-nowrap">
                      <When at={c.lastActivityAt} />
                    </td>
                    <td className="py-2 pr-3">
                      <Link href={`${base}/${c.id}`} className="font-medium underline underline-offset-2">
                        {c.preview.trim() || "(no question)"}
                      </Link>
                      <div className="muted text-xs break-all">
                        {c.pageUrl || c.origin || "unknown page"}
                        {c.locale ? ` · ${c.locale}` : ""}
                      </div>
                    </td>
                    <td className="py-2 pr-3">
                      <OutcomeBadge outcome={c.outcome} />
                    </td>
                    <td className="py-2 pr-3">{c.packs.length ? c.packs.map(packLabel).join(", ") : "—"}</td>
                    <td className="py-2 pr-3 text-right tabular-nums">{formatNumber(c.messages)}</td>
                    <td className="py-2 text-right tabular-nums">
                      {c.tokensEstimated ? (
                        <abbr title="Includes an estimate" className="no-underline">
                          ≈{" "}
                        </abbr>
                      ) : null}
                      {formatNumber(c.tokens)}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
            {page.items.some((c) => c.tokensEstimated) ? (
              <p className="muted mt-2 text-xs">
                ≈ estimated: the model server generated part of an answer but never reported its usage (a cut
                or failed stream), so those tokens were estimated from the text.
              </p>
            ) : null}
          </div>
        )}
        <nav aria-label="Conversation pages" className="mt-4 flex gap-3">
          {cursor ? (
            <Link className="btn btn-secondary" href={`${base}${query(filters)}`}>
              Newest
            </Link>
          ) : null}
          {page.nextCursor ? (
            <Link
              className="btn btn-secondary"
              href={`${base}${query(filters, { cursor: page.nextCursor })}`}
            >
              Older conversations
            </Link>
          ) : null}
        </nav>
      </Card>
    </div>
  );
}
