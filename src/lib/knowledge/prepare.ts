import "server-only";
import { primarySubtag } from "../../shared/languages";
import type { ChunkFn, ExtractedDoc, Prepared } from "./deps";

// From an extracted document to the rows the index stores: the language it is indexed in, its chunks with
// their hashes, and each chunk's words as the full-text index sees them (Japanese split into words). The
// extraction worker does this beside the parsing (./extract-worker.ts), so a page's chunking, hashing and word
// splitting never run on the event loop that serves chats; the jobs do it themselves only when extraction
// ran in-process (tests, the pack kit).

/** The primary language subtag the search configuration knows, else "und" (indexed without stemming). */
export function indexLang(lang: string | null | undefined, fallback = "und"): string {
  const primary = primarySubtag(lang);
  return ["en", "es", "fr", "de", "ja"].includes(primary) ? primary : fallback;
}

export function prepareChunks(
  doc: Pick<ExtractedDoc, "lang" | "sections">,
  chunk: ChunkFn,
  searchText: (text: string, lang?: string | null) => string,
): Prepared {
  const sample = doc.sections
    .map((s) => s.text)
    .join(" ")
    .slice(0, 2000);
  const lang = indexLang(doc.lang, /[\u3040-\u30ff]/.test(sample) ? "ja" : "und");
  const chunks = chunk(doc.sections).map((c) => ({
    ord: c.index,
    headingPath: c.headingPath.join(" › "),
    text: c.text,
    hash: c.hash,
    lang,
    words: searchText(c.text, lang),
  }));
  return { lang, chunks };
}
