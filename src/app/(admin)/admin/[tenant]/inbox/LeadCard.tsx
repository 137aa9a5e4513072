import Link from "next/link";
import type { PlainActionFn } from "@/lib/auth/action";
import type { LeadRow, VisibleMessage } from "@/lib/leads/types";
import { mailtoHref, telHref } from "@/shared/contact";
import { When } from "../conversations/display";
import { KIND_LABEL } from "./filters";
import { LeadStatusForm } from "./LeadStatusForm";

/** One request of the Inbox: who, its status, the details left, the conversation as the visitor saw it. */
export function LeadCard({
  lead: l,
  talk,
  tenantSlug,
  action,
  canEdit,
  tz,
}: {
  lead: LeadRow;
  tz: string;
  talk: VisibleMessage[] | undefined;
  tenantSlug: string;
  action: PlainActionFn;
  canEdit: boolean;
}) {
  return (
    <li className="card space-y-3" aria-labelledby={`lead-${l.id}`}>
      <div className="flex flex-wrap items-baseline justify-between gap-2">
        <h2 id={`lead-${l.id}`} className="font-semibold">
          {l.name || l.email || l.phone || KIND_LABEL[l.kind]}
        </h2>
        <span className="text-xs muted">
          <When at={l.createdAt} tz={tz} /> · {KIND_LABEL[l.kind]} ·{" "}
          {l.kind === "booking"
            ? "confirmed by the visitor; accept or refuse it with them"
            : l.source === "assistant"
              ? "offered by the assistant"
              : "from the chat menu"}
        </span>
      </div>
      <LeadStatus lead={l} tz={tz} />
      {l.mailStatus === "failed" ? (
        <p className="rounded-lg border border-danger-600/40 bg-danger-600/10 px-3 py-2 text-sm">
          The notification mail about this request could not be sent
          {l.mailError ? ` (${l.mailError})` : ""}. It is tried again automatically for about an hour.
        </p>
      ) : null}
      {l.kind !== "handoff" ? (
        <ContactDetails lead={l} />
      ) : (
        <p className="text-sm muted">The visitor has not left contact details.</p>
      )}
      {l.conversationId ? (
        <VisitorTranscript
          talk={talk ?? []}
          href={`/admin/${tenantSlug}/conversations/${l.conversationId}`}
        />
      ) : (
        <p className="text-sm muted">Sent before any chat message (or the conversation was deleted).</p>
      )}
      <LeadStatusForm id={l.id} handled={l.status === "handled"} action={action} readOnly={!canEdit} />
    </li>
  );
}

function LeadStatus({ lead: l, tz }: { lead: LeadRow; tz: string }) {
  return (
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
          by {l.handledByLabel || "a former member"} on <When at={l.handledAt} tz={tz} />
        </span>
      ) : null}
    </p>
  );
}

function ContactDetails({ lead: l }: { lead: LeadRow }) {
  return (
    <dl className="grid gap-x-6 gap-y-1 text-sm sm:grid-cols-[auto_1fr]">
      <dt className="muted">E-mail</dt>
      <dd className="break-all">{l.email ? <a href={mailtoHref(l.email)}>{l.email}</a> : "—"}</dd>
      <dt className="muted">Phone</dt>
      <dd>{l.phone ? <a href={telHref(l.phone)}>{l.phone}</a> : "—"}</dd>
      <dt className="muted">Message</dt>
      <dd className="whitespace-pre-wrap break-words">{l.message}</dd>
      <dt className="muted">Language</dt>
      <dd>{l.locale || "not given"}</dd>
      <dt className="muted">Consent</dt>
      <dd className="text-xs">{l.consentText || "—"}</dd>
    </dl>
  );
}

function VisitorTranscript({ talk, href }: { talk: VisibleMessage[]; href: string }) {
  return (
    <details>
      <summary className="cursor-pointer text-sm font-medium">
        The conversation as the visitor saw it ({talk.length} messages)
      </summary>
      <ol className="mt-2 space-y-2 text-sm">
        {talk.map((m, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: the list is static and ordered
          <li key={i} className={m.role === "user" ? "text-right" : ""}>
            <span className="font-semibold">{m.role === "user" ? "Visitor" : "Bot"}: </span>
            <span className="whitespace-pre-wrap break-words">{m.content}</span>
          </li>
        ))}
      </ol>
      <Link className="mt-2 inline-block text-sm underline" href={href}>
        Open the full transcript
      </Link>
    </details>
  );
}
