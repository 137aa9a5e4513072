import "server-only";
import { isAppError } from "../../errors";
import { log } from "../../log";
import { sha256 } from "./chunk";
import { extractDocx } from "./docx";
import { extractHtml } from "./html";
import { extractPdf } from "./pdf";
import { robotsDirectives } from "./robots-directives";
import { markdownSections, plainTextSections } from "./text";
import {
  DEFAULT_LIMITS,
  deadline,
  type ExtractedDocument,
  type ExtractFailureReason,
  type ExtractLimits,
  type ExtractResult,
  refusal,
  type Section,
} from "./types";

// The one way in: a fetched page or an uploaded file, whatever its format, to the same sections. Plain data
// in and out, no I/O and no shared state, so a worker thread or a job process can run it off the event loop
// that serves chats (the caller's worker is also the hard stop for a parser stuck inside one step).

export { type Chunk, type ChunkOptions, chunkHash, chunkSections } from "./chunk";
export { questionText, searchText } from "./search-text";
export {
  DEFAULT_LIMITS,
  type ExtractedDocument,
  type ExtractFailureReason,
  type ExtractLimits,
  type ExtractResult,
  extractFailureError,
  type Section,
} from "./types";

export type ExtractInput = {
  /** The body as fetched or uploaded; or `html` for a page already decoded. */
  bytes?: Uint8Array;
  html?: string;
  /** The Content-Type header (charset included) or the upload's type; sniffed from the bytes when absent. */
  contentType?: string | null;
  /** Where the document lives (a page's final URL after redirects, or an upload's file name as a URL). */
  url: string;
  /** The response's X-Robots-Tag header values, if any: how a PDF or another file says noindex/nofollow. */
  robotsHeader?: string[];
  limits?: Partial<ExtractLimits>;
};

type Kind = "html" | "pdf" | "docx" | "markdown" | "text";

const DOCX_TYPE = "application/vnd.openxmlformats-officedocument.wordprocessingml.document";

/** The name part of a URL or of a bare file name, lower-cased, for sniffing a type by its extension. */
function fileName(url: string): string {
  try {
    return new URL(url).pathname.toLowerCase();
  } catch {
    return url.toLowerCase();
  }
}

function kindOf(mime: string, bytes: Uint8Array | undefined, url: string): Kind | null {
  if (mime === "text/html" || mime === "application/xhtml+xml") return "html";
  if (mime === "application/pdf") return "pdf";
  if (mime === DOCX_TYPE) return "docx";
  if (mime === "text/markdown" || mime === "text/x-markdown") return "markdown";
  if (mime === "text/plain") return /\.(md|markdown)$/.test(fileName(url)) ? "markdown" : "text";
  if (mime && mime !== "application/octet-stream" && mime !== "binary/octet-stream") return null;
  // No useful type: the bytes, then the file name.
  const head = bytes ? Buffer.from(bytes.subarray(0, 512)).toString("latin1") : "";
  if (head.startsWith("%PDF-")) return "pdf";
  const path = fileName(url);
  if (head.startsWith("PK\u0003\u0004")) return path.endsWith(".docx") ? "docx" : null;
  if (/\.(md|markdown)$/.test(path)) return "markdown";
  if (/\.txt$/.test(path)) return "text";
  if (/^\s*(<!doctype html|<html|<head|<body)/i.test(head) || /\.x?html?$/.test(path)) return "html";
  return null;
}

function charsetOf(contentType: string | null | undefined, bytes: Uint8Array, html: boolean): string {
  const declared = /charset\s*=\s*"?([\w.:-]+)/i.exec(contentType ?? "")?.[1];
  if (declared) return declared;
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return "utf-16be";
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return "utf-16le";
  if (html) {
    const head = Buffer.from(bytes.subarray(0, 1024)).toString("latin1");
    const meta = /<meta[^>]+charset\s*=\s*["']?([\w.:-]+)/i.exec(head)?.[1];
    if (meta) return meta;
  }
  return "utf-8";
}

function decode(bytes: Uint8Array, charset: string): string {
  try {
    return new TextDecoder(charset).decode(bytes);
  } catch {
    return new TextDecoder("utf-8").decode(bytes);
  }
}

function documentHash(title: string | null, sections: Section[]): string {
  return sha256(JSON.stringify({ title, sections }));
}

async function run(input: ExtractInput, limits: ExtractLimits): Promise<ExtractedDocument> {
  const clock = deadline(limits.timeoutMs);
  const mime =
    (input.contentType ?? (input.html !== undefined ? "text/html" : ""))
      .split(";")[0]
      ?.trim()
      .toLowerCase() ?? "";
  const bytes = input.bytes;
  const kind = kindOf(mime, bytes, input.url);
  if (!kind) {
    const hint = mime === "application/msword" ? " Save it as DOCX and upload that." : "";
    throw refusal("unsupported_type", `Files of type ${mime || "unknown"} cannot be read.${hint}`);
  }
  if (bytes && bytes.byteLength > (kind === "html" ? limits.maxHtmlBytes : limits.maxInputBytes)) {
    const cap = kind === "html" ? limits.maxHtmlBytes : limits.maxInputBytes;
    throw refusal("too_large", `The file is larger than ${Math.round(cap / 1024 / 1024)} MB.`);
  }
  const text = () =>
    input.html ??
    decode(
      bytes ?? new Uint8Array(),
      charsetOf(input.contentType, bytes ?? new Uint8Array(), kind === "html"),
    );
  const blank = { canonical: null, noindex: false, links: [] as string[], navigationOnly: false };
  let doc: Omit<ExtractedDocument, "hash">;
  switch (kind) {
    case "html":
      doc = extractHtml({ html: text(), url: input.url, robotsHeader: input.robotsHeader }, limits, clock);
      break;
    case "pdf":
      doc = { ...blank, ...(await extractPdf(bytes ?? new Uint8Array(), limits, clock)) };
      break;
    case "docx":
      doc = { ...blank, lang: null, ...(await extractDocx(bytes ?? new Uint8Array(), limits, clock)) };
      break;
    case "markdown":
      doc = { ...blank, lang: null, ...markdownSections(text(), limits) };
      break;
    case "text":
      doc = { ...blank, lang: null, title: null, sections: plainTextSections(text(), limits) };
      break;
  }
  if (kind !== "html" && input.robotsHeader?.length) {
    doc = { ...doc, noindex: robotsDirectives([], input.robotsHeader).noindex };
  }
  return { ...doc, hash: documentHash(doc.title, doc.sections) };
}

/** Extracts a document's content, or says why it cannot (too large, a zip bomb, too slow, unreadable…). */
export async function extractDocument(input: ExtractInput): Promise<ExtractResult> {
  const limits = { ...DEFAULT_LIMITS, ...input.limits };
  try {
    return { ok: true, doc: await run(input, limits) };
  } catch (e) {
    const reason = isAppError(e) ? (e.details?.reason as ExtractFailureReason | undefined) : undefined;
    if (reason && isAppError(e)) return { ok: false, reason, message: e.message };
    // A parser's own failure on a malformed file, or a bug here: logged with its stack, refused as unreadable.
    log().warn({ err: e, url: input.url }, "document extraction failed");
    return { ok: false, reason: "unreadable", message: "The document could not be read." };
  }
}
