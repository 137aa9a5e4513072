import Link from "next/link";
import { VerifiedVisitor } from "@/components/ui";
import type { ConversationSummary } from "@/lib/insights/types";
import { formatNumber, OutcomeBadge, packLabel, When } from "./display";

/** One page of conversations, newest activity first; each first question links to its transcript. */
export function ConversationTable({
  items,
  base,
  tz,
}: {
  items: ConversationSummary[];
  base: string;
  tz: string;
}) {
  return (
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
          {items.map((c) => (
            <ConversationRow key={c.id} c={c} href={`${base}/${c.id}`} tz={tz} />
          ))}
        </tbody>
      </table>
      {items.some((c) => c.tokensEstimated) ? (
        <p className="muted mt-2 text-xs">
          ≈ estimated: the model server generated part of an answer but never reported its usage (a cut or
          failed stream), so those tokens were estimated from the text.
        </p>
      ) : null}
    </div>
  );
}

function ConversationRow({ c, href, tz }: { c: ConversationSummary; href: string; tz: string }) {
  return (
    <tr className="border-b border-[var(--border)] align-top">
      <td className="py-2 pr-3 whitespace-nowrap">
        <When at={c.lastActivityAt} tz={tz} />
      </td>
      <td className="py-2 pr-3">
        <Link href={href} className="font-medium underline underline-offset-2">
          {c.preview.trim() || "(no question)"}
        </Link>
        <div className="muted text-xs break-all">
          {c.pageUrl || c.origin || "unknown page"}
          {c.locale ? ` · ${c.locale}` : ""}
        </div>
        <VerifiedVisitor visitor={c.verifiedVisitor} />
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
  );
}
