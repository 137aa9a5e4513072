import "server-only";
import { rewriteMarkers } from "../../shared/citations";
import type { OutboundReply } from "../db/schema";

// An answer's sources on a phone. The widget shows the [n] markers in the text and the cited pages in a list
// under it; a channel message has no place beside the text, so the list goes at the end of the answer, in
// Markdown, and each adapter's own converter makes it the channel's (Telegram: a link per source; WhatsApp:
// "title (address)"); the split then keeps it within the channel's limits like any other paragraph. The
// markers the answer cites become "(1)", which a reader of a plain message understands, and the list uses the
// same numbers; a marker whose passage is not in the list (a number the search never returned) is dropped,
// so an answer that cites nothing reaches the person with neither markers nor sources. Which markers count,
// and which passages they cite, is the widget's one rule (src/shared/citations.ts).

export type ReplySources = NonNullable<OutboundReply["sources"]>;

/** Markdown link text cannot hold brackets or line breaks; a title is a title, never formatting. */
const linkText = (title: string) =>
  title.replace(/\s+/g, " ").replaceAll("[", "(").replaceAll("]", ")").replaceAll("`", "'").trim();

/**
 * The Markdown a channel sends for an answer: `markdown` unchanged when the reply is not an answer of the
 * assistant (`sources` absent: a person's reply, the platform's own words), else with its markers rewritten
 * and its cited sources listed at the end: a web page as a link, an uploaded document by its name alone.
 */
export function withSources(markdown: string, sources: ReplySources | null | undefined): string {
  if (!sources) return markdown;
  const listed = new Set(sources.list.map((c) => c.n));
  const text = rewriteMarkers(markdown, (numbers) => {
    const kept = numbers.filter((n) => listed.has(n));
    return kept.length > 0 ? `(${kept.join(", ")})` : "";
  });
  if (sources.list.length === 0) return text;
  const lines = sources.list.map((c) => {
    const title = linkText(c.title);
    return c.url ? `(${c.n}) [${title || c.url}](${c.url})` : `(${c.n}) ${title}`;
  });
  return `${text.trimEnd()}\n\n**${sources.label}**\n${lines.join("\n")}`;
}
