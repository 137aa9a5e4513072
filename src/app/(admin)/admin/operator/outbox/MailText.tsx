// A kept mail's text as the recipient would read it, with its web links made clickable (the operator follows
// an invitation or a reset link from here when no mail server is configured). Only http(s) links become
// anchors; everything else stays text, which React escapes.
const URL_RE = /(https?:\/\/[^\s<>"]+)/g;

export function MailText({ text }: { text: string }) {
  // split() with a capturing group alternates text and links; each piece is keyed by where it starts.
  const pieces: { at: number; text: string; link: boolean }[] = [];
  let at = 0;
  for (const [i, piece] of text.split(URL_RE).entries()) {
    pieces.push({ at, text: piece, link: i % 2 === 1 });
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
