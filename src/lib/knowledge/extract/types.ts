import "server-only";
import { AppError, type ErrorCode } from "../../errors";

// The one shape every extractor returns, whatever the source format. Plain data only (strings, arrays,
// booleans, numbers), so a worker thread or a job process can post it back with structured clone.

/** A run of text under one heading; `headingPath` lists the headings above it, outermost first. */
export type Section = { headingPath: string[]; text: string };

export type ExtractedDocument = {
  /** The page's own name for itself (its first main heading, else `<title>`), or null. */
  title: string | null;
  /** Lower-case BCP 47 tag the document declares (`en`, `pt-br`), or null when it declares none. */
  lang: string | null;
  /** Absolute, fragment-free canonical URL the page names, or null. */
  canonical: string | null;
  /** The page asks not to be indexed (`<meta name="robots|michi-chat" content="noindex">`). */
  noindex: boolean;
  /**
   * Absolute http(s) links of the whole page (navigation included: a crawler needs them), fragment-free,
   * deduplicated, in document order; empty when the page says `nofollow`.
   */
  links: string[];
  /** The main content in reading order, navigation, footers, banners and boilerplate removed. */
  sections: Section[];
  /**
   * Most of the main content's text is link text (a hub or site-map page): worth crawling for its links,
   * not worth indexing as an answer. Always false for files.
   */
  navigationOnly: boolean;
  /** sha256 (hex) of the sections: equal hashes mean equal indexed content. */
  hash: string;
};

/** Why a document was not extracted: a code for the admin page and a sentence for people. */
export type ExtractFailureReason =
  | "too_large"
  | "too_many_pages"
  | "too_much_text"
  | "zip_bomb"
  | "timeout"
  | "unsupported_type"
  | "unreadable";

export type ExtractResult =
  | { ok: true; doc: ExtractedDocument }
  | { ok: false; reason: ExtractFailureReason; message: string };

/** Bounds on what one document may cost; a hostile file meets one of them and is refused with its reason. */
export type ExtractLimits = {
  /** Bytes of a file (PDF, DOCX, Markdown, text). */
  maxInputBytes: number;
  /** Bytes of an HTML page (a DOM costs several times its source in memory). */
  maxHtmlBytes: number;
  /** Elements of an HTML page, counted before parsing: the parser's time grows with them, not with bytes. */
  maxElements: number;
  /** Nesting depth of an HTML page, estimated before parsing (deep nesting is slow to parse and to walk). */
  maxDepth: number;
  /** Links kept from one page, in document order; the rest are dropped (a page of endless links). */
  maxLinks: number;
  /** Characters of extracted text, all sections together. */
  maxTextChars: number;
  /** Pages of a PDF. */
  maxPages: number;
  /** Uncompressed bytes of all entries of a DOCX (a zip). */
  maxUnzippedBytes: number;
  /** Entries in a DOCX. */
  maxZipEntries: number;
  /** Uncompressed bytes of a DOCX's XML parts, which the converter parses (media are not read). */
  maxDocxMarkupBytes: number;
  /** Decoded bytes of one PDF stream, checked before PDF.js inflates it outside the heap. */
  maxPdfStreamBytes: number;
  /** Decoded bytes of all a PDF's streams together. */
  maxPdfStreamsBytes: number;
  /** Wall-clock budget, checked between pages and steps (the caller's worker is the hard stop). */
  timeoutMs: number;
};

export const DEFAULT_LIMITS: ExtractLimits = {
  maxInputBytes: 20 * 1024 * 1024,
  maxHtmlBytes: 5 * 1024 * 1024,
  maxElements: 50_000,
  maxDepth: 500,
  maxLinks: 5_000,
  maxTextChars: 2_000_000,
  maxPages: 500,
  maxUnzippedBytes: 100 * 1024 * 1024,
  maxZipEntries: 2_000,
  // mammoth holds a part's XML as a tree: about 20 times its size on the heap (a 28 MB part took the worker down).
  maxDocxMarkupBytes: 10 * 1024 * 1024,
  maxPdfStreamBytes: 16 * 1024 * 1024,
  maxPdfStreamsBytes: 128 * 1024 * 1024,
  timeoutMs: 30_000,
};

const REASON_CODE: Record<ExtractFailureReason, ErrorCode> = {
  too_large: "payload_too_large",
  too_many_pages: "payload_too_large",
  too_much_text: "payload_too_large",
  zip_bomb: "invalid_input",
  timeout: "payload_too_large",
  unsupported_type: "unsupported_media_type",
  unreadable: "invalid_input",
};

/** The refusal an extractor throws; `extractDocument` turns it into a failed `ExtractResult`. */
export function refusal(reason: ExtractFailureReason, message: string): AppError {
  return new AppError(REASON_CODE[reason], message, { reason });
}

/** The extraction failure as the platform's error, for a caller that answers a person (an upload). */
export function extractFailureError(failure: { reason: ExtractFailureReason; message: string }): AppError {
  return refusal(failure.reason, failure.message);
}

/** A clock the extractors consult between steps. */
export type Deadline = { check(step: string): void };

export function deadline(timeoutMs: number, now: () => number = () => performance.now()): Deadline {
  const end = now() + timeoutMs;
  return {
    check(step) {
      if (now() > end)
        throw refusal("timeout", `Reading the document took longer than ${timeoutMs} ms (${step}).`);
    },
  };
}
