// A kept mail's text as the recipient would read it. The operator follows an invitation, reset or sign-up
// confirmation link from here when no mail server is configured, so in those mails, which the platform writes
// whole, a link to the platform's own address becomes clickable. Nothing else does: a lead or hand-off mail carries what a visitor
// typed, and a visitor's link must not become one click away for the operator. Everything stays text, which
// React escapes.
const URL_RE = /(https?:\/\/[^\s<>"]+)/g;

/** Mails the platform writes entirely itself; the others quote visitors or operators. */
const LINKED_KINDS = new Set(["invitation", "password_reset", "sign_up"]);

export function MailText({ text, kind, origin }: { text: string; kind: string; origin: string }) {
  const linkable = LINKED_KINDS.has(kind);
  // split() with a capturing group alternates text and links; each piece is keyed by where it starts.
  const pieces: { at: number; text: string; link: boolean }[] = [];
  let at = 0;
  for (const [i, piece] of text.split(URL_RE).entries()) {
    pieces.push({ at, text: piece, link: linkable && i % 2 === 1 && sameOrigin(piece, origin) });
    at += piece.length;
  }
  return (
    <pre className="mt-2 overflow-x-auto whitespace-pre-wrap break-all rounded-lg bg-[var(--surface-muted)] p-3 font-mono text-sm">
      {pieces.map((p) =>
        p.link ? (
          <a key={p.at} href={p.text} className="underline" rel="noreferrer">
            {p.text}
          </a>
        ) : (
          <span key={p.at}>{p.text}</span>
        ),
      )}
    </pre>
  );
}

function sameOrigin(link: string, origin: string): boolean {
  try {
    return new URL(link).origin === origin;
  } catch {
    return false;
  }
}
