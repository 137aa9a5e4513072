import "server-only";
import { createHash } from "node:crypto";
import type { Section } from "./types";

// Chunks for retrieval: every chunk lies inside one section and keeps its heading path; a long section is
// cut between paragraphs, else between sentences, else between words, and each further piece starts with the
// end of the previous one (the overlap), so a sentence cut by the boundary is still found whole. The hash
// depends only on the heading path and the text: a re-sync recognises an unchanged chunk by it.

export type Chunk = {
  /** Position in the document, from 0. */
  index: number;
  headingPath: string[];
  text: string;
  /** sha256 (hex) of the heading path and the text. */
  hash: string;
};

export type ChunkOptions = {
  /** Longest chunk, in characters, before the overlap is added. Default 1200. */
  maxChars?: number;
  /** Characters carried over from the previous piece of the same section. Default 150. */
  overlapChars?: number;
};

export function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

export function chunkHash(headingPath: string[], text: string): string {
  return sha256(JSON.stringify([headingPath, text]));
}

type Unit = {
  text: string /** How it joins the unit before it: a new line, or a space inside a line. */;
  sep: string;
};

function words(sentence: string, max: number, out: Unit[]): void {
  let piece = "";
  const emit = () => {
    if (piece.trim()) out.push({ text: piece.trim(), sep: " " });
    piece = "";
  };
  for (const word of sentence.split(/(?<=\s)/)) {
    for (let i = 0; i < word.length; i += max) {
      const part = word.slice(i, i + max);
      if (piece.length + part.length > max) emit();
      piece += part;
    }
  }
  emit();
}

/** Pieces no longer than `max`: paragraphs (lines), else sentences, else words, else hard cuts. */
function units(text: string, max: number): Unit[] {
  const out: Unit[] = [];
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    const start = out.length;
    if (line.length <= max) out.push({ text: line, sep: " " });
    else
      for (const sentence of line.split(/(?<=[.!?。！？])\s*/u)) {
        if (sentence.length <= max) out.push({ text: sentence, sep: " " });
        else words(sentence, max, out);
      }
    const first = out[start];
    if (first) first.sep = "\n";
  }
  return out.filter((u) => u.text.trim() !== "");
}

/** The end of a piece, at most `max` characters, starting at a word boundary. */
function tail(text: string, max: number): string {
  if (max <= 0) return "";
  if (text.length <= max) return text;
  const cut = text.slice(text.length - max);
  const space = cut.search(/\s/);
  return space >= 0 ? cut.slice(space).trim() : cut;
}

export function chunkSections(sections: Section[], opts: ChunkOptions = {}): Chunk[] {
  const max = Math.max(100, opts.maxChars ?? 1200);
  const overlap = Math.max(0, Math.min(opts.overlapChars ?? 150, Math.floor(max / 2)));
  const chunks: Chunk[] = [];
  const push = (headingPath: string[], text: string) =>
    chunks.push({ index: chunks.length, headingPath, text, hash: chunkHash(headingPath, text) });
  for (const section of sections) {
    const pieces: string[] = [];
    let current = "";
    for (const unit of units(section.text, max)) {
      const joined = current ? `${current}${unit.sep}${unit.text}` : unit.text;
      if (joined.length > max && current) {
        pieces.push(current);
        current = unit.text;
      } else {
        current = joined;
      }
    }
    if (current) pieces.push(current);
    pieces.forEach((piece, i) => {
      const carried = i > 0 ? tail(pieces[i - 1] ?? "", overlap) : "";
      push(section.headingPath, carried ? `${carried}\n${piece}` : piece);
    });
  }
  return chunks;
}
