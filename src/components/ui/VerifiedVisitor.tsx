// The visitor the business's own site vouched for (a signed identity token): their name and e-mail are facts
// the business gave us, so the Inbox and the live console show them beside a "Verified" label. Anonymous
// visitors show nothing here.

type Visitor = { id: string; email?: string; name?: string };

export function VerifiedVisitor({ visitor }: { visitor: Visitor | null | undefined }) {
  if (!visitor) return null;
  const who = [visitor.name, visitor.email].filter(Boolean).join(" · ") || visitor.id;
  return (
    <span className="inline-flex flex-wrap items-center gap-1 text-xs" data-verified-visitor>
      <span className="rounded bg-[var(--accent-soft,#e6f4ea)] px-1.5 py-0.5 font-medium">Verified</span>
      <span className="break-all">{who}</span>
    </span>
  );
}
