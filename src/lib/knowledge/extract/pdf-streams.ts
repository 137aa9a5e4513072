import "server-only";
import { constants, inflateSync } from "node:zlib";
import { type Deadline, refusal } from "./types";

// PDF.js inflates a stream whole into one growing buffer outside the V8 heap, so neither the file limit nor the
// worker's heap limit bounds it: a 1 MB file can hold a stream that inflates to 1 GiB. Before PDF.js sees a
// file, every stream is decoded here through its filter chain with a cap on what each step may produce
// (zlib's maxOutputLength stops inflating at the cap instead of growing), and the file is refused when one
// stream or all of them together would decode past the budget. Image codecs (DCT, JPX, CCITT, JBIG2) end a
// chain: extracting text never decodes them. An encrypted file's streams cannot be decoded without its key;
// those are counted as written, and the worker's deadline and memory watch stay the stop for them.

export type StreamBudget = { perStreamBytes: number; totalBytes: number };

const MB = 1024 * 1024;
/** How far back from `stream` its dictionary is looked for. */
const DICT_WINDOW = 16 * 1024;

/** A PDF name with its #xx escapes decoded (`/Fl#61teDecode` is `/FlateDecode`). */
function pdfName(raw: string): string {
  return raw.replace(/#([0-9a-fA-F]{2})/g, (_, h: string) => String.fromCharCode(Number.parseInt(h, 16)));
}

/** The text of indirect object `num gen`, from its `obj` keyword to `endobj` (at most 4 KB). */
function objectText(pdf: Buffer, num: string, gen: string): string | null {
  const at = pdf.indexOf(`${num} ${gen} obj`, 0, "latin1");
  if (at < 0) return null;
  const end = pdf.indexOf("endobj", at, "latin1");
  return pdf.toString("latin1", at, Math.min(end < 0 ? pdf.length : end, at + 4096));
}

function namesOf(spec: string): string[] {
  return [...spec.matchAll(/\/([^\s/[\]<>()]+)/g)].map((n) => pdfName(n[1]!)).slice(0, 8);
}

/**
 * Every filter chain written between the previous stream and this one. A dictionary is not parsed: a string
 * inside it could hide where it starts, so every `/Filter` of the stretch is tried, the real one among them.
 */
function filterChains(pdf: Buffer, stretch: string): string[][] {
  const chains = new Map<string, string[]>();
  for (const m of stretch.matchAll(/\/Filter\s*(\[[^\]]*\]|\/[^\s/[\]<>()]+|(\d+)\s+(\d+)\s+R)/g)) {
    let spec: string | undefined = m[1];
    if (m[2] && m[3]) {
      const target = objectText(pdf, m[2], m[3]);
      spec = target ? /obj\s*(\[[^\]]*\]|\/[^\s/[\]<>()]+)/.exec(target)?.[1] : undefined;
    }
    const names = spec ? namesOf(spec) : [];
    if (names.length) chains.set(names.join(" "), names);
    if (chains.size >= 8) break;
  }
  return [...chains.values()];
}

/** Data that starts like a zlib stream is inflated whatever the dictionary says (a chain of them, too). */
function looksDeflated(data: Buffer): boolean {
  return data.length > 2 && (data[0]! & 0x0f) === 8 && ((data[0]! << 8) | data[1]!) % 31 === 0;
}

class OverCap extends Error {}

function asciiHex(data: Buffer): Buffer {
  const text = data.toString("latin1");
  const end = text.indexOf(">");
  const digits = (end < 0 ? text : text.slice(0, end)).replace(/[^0-9a-fA-F]/g, "");
  return Buffer.from(digits.length % 2 ? `${digits}0` : digits, "hex");
}

function ascii85(data: Buffer): Buffer {
  const out: number[] = [];
  let group: number[] = [];
  for (let i = 0; i < data.length; i++) {
    const c = data[i]!;
    if (c === 0x7e) break; // ~> ends the data
    if (c === 0x7a && group.length === 0) {
      out.push(0, 0, 0, 0);
      continue;
    }
    if (c < 0x21 || c > 0x75) continue;
    group.push(c - 33);
    if (group.length === 5) {
      let v = 0;
      for (const d of group) v = v * 85 + d;
      out.push((v >>> 24) & 255, (v >>> 16) & 255, (v >>> 8) & 255, v & 255);
      group = [];
    }
  }
  if (group.length > 1) {
    const n = group.length;
    while (group.length < 5) group.push(84);
    let v = 0;
    for (const d of group) v = v * 85 + d;
    const bytes = [(v >>> 24) & 255, (v >>> 16) & 255, (v >>> 8) & 255, v & 255];
    out.push(...bytes.slice(0, n - 1));
  }
  return Buffer.from(out);
}

function runLength(data: Buffer, cap: number): Buffer {
  const out: Buffer[] = [];
  let size = 0;
  for (let i = 0; i < data.length; ) {
    const n = data[i]!;
    if (n === 128) break;
    const part = n < 128 ? data.subarray(i + 1, i + 2 + n) : Buffer.alloc(257 - n, data[i + 1] ?? 0);
    i += n < 128 ? n + 2 : 2;
    size += part.length;
    if (size > cap) throw new OverCap();
    out.push(part);
  }
  return Buffer.concat(out);
}

/** LZW as PDF uses it (8-bit codes from 258, 9 to 12 bits wide, EarlyChange 1), stopping at `cap` bytes. */
function lzw(data: Buffer, cap: number): Buffer {
  // One 9-bit code yields at most 4,096 bytes.
  const out = Buffer.alloc(Math.min(cap, Math.ceil((data.length * 8) / 9) * 4096) + 1);
  let size = 0;
  const prefix = new Int32Array(4096);
  const suffix = new Uint8Array(4096);
  const length = new Uint16Array(4096);
  for (let i = 0; i < 256; i++) {
    suffix[i] = i;
    length[i] = 1;
    prefix[i] = -1;
  }
  let next = 258;
  let width = 9;
  let prev = -1;
  let bits = 0;
  let acc = 0;
  let i = 0;
  const write = (code: number): number => {
    const len = length[code]!;
    if (size + len > cap) throw new OverCap();
    for (let c = code, k = len - 1; k >= 0; k--, c = prefix[c]!) out[size + k] = suffix[c]!;
    size += len;
    return out[size - len]!;
  };
  while (i < data.length || bits >= width) {
    while (bits < width && i < data.length) {
      acc = ((acc << 8) | data[i++]!) & 0xffffff;
      bits += 8;
    }
    if (bits < width) break;
    const code = (acc >>> (bits - width)) & ((1 << width) - 1);
    bits -= width;
    if (code === 256) {
      next = 258;
      width = 9;
      prev = -1;
      continue;
    }
    if (code === 257) break;
    let first: number;
    if (code < next) first = write(code);
    else if (code === next && prev >= 0) {
      first = write(prev);
      if (size + 1 > cap) throw new OverCap();
      out[size++] = first;
    } else break;
    if (prev >= 0 && next < 4096) {
      prefix[next] = prev;
      suffix[next] = first;
      length[next] = length[prev]! + 1;
      next++;
      if (next + 1 >= 1 << width && width < 12) width++;
    }
    prev = code;
  }
  return out.subarray(0, size);
}

/** The stream's bytes decoded through its filters, or as far as they can be; OverCap past the cap. */
function decodedSize(data: Buffer, filters: string[], cap: number): number {
  let bytes = data;
  for (const f of filters) {
    if (f === "FlateDecode" || f === "Fl") {
      try {
        bytes = inflateSync(bytes, { maxOutputLength: cap, finishFlush: constants.Z_SYNC_FLUSH });
      } catch (e) {
        if (e instanceof RangeError || (e as { code?: string }).code === "ERR_BUFFER_TOO_LARGE")
          throw new OverCap();
        return bytes.length; // damaged data: PDF.js gives up on it too
      }
    } else if (f === "ASCIIHexDecode" || f === "AHx") bytes = asciiHex(bytes);
    else if (f === "ASCII85Decode" || f === "A85") bytes = ascii85(bytes);
    else if (f === "RunLengthDecode" || f === "RL") bytes = runLength(bytes, cap);
    else if (f === "LZWDecode" || f === "LZW") bytes = lzw(bytes, cap);
    else break;
  }
  return bytes.length;
}

/** The largest size the stream decodes to under any of the chains it may have. */
function streamSize(data: Buffer, chains: string[][], cap: number): number {
  let size = data.length;
  for (const chain of chains) {
    try {
      size = Math.max(size, decodedSize(data, chain, cap));
    } catch (e) {
      if (e instanceof OverCap) throw e; // other failures: data PDF.js cannot decode either
    }
  }
  let layer = data;
  for (let depth = 0; depth < 4 && looksDeflated(layer); depth++) {
    try {
      layer = inflateSync(layer, { maxOutputLength: cap, finishFlush: constants.Z_SYNC_FLUSH });
    } catch (e) {
      if (e instanceof RangeError || (e as { code?: string }).code === "ERR_BUFFER_TOO_LARGE")
        throw new OverCap();
      break;
    }
    size = Math.max(size, layer.length);
  }
  return size;
}

/** Refuses (zip_bomb) a PDF whose streams would decode past the budget; reads nothing else. */
export function checkPdfStreams(bytes: Uint8Array, budget: StreamBudget, clock: Deadline): void {
  const pdf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const bomb = (what: string) =>
    refusal("zip_bomb", `The PDF holds ${what} (a compression bomb), so it is not read.`);
  let total = 0;
  let pos = 0;
  let stretchFrom = 0;
  for (let n = 0; ; n++) {
    const k = pdf.indexOf("stream", pos, "latin1");
    if (k < 0) break;
    pos = k + 6;
    if (k >= 3 && pdf.toString("latin1", k - 3, k) === "end") continue;
    let start = k + 6;
    if (pdf[start] === 0x0d) start++;
    if (pdf[start] === 0x0a) start++;
    if (start === k + 6) continue; // `stream` must end its line
    if (n % 64 === 0) clock.check("checking the PDF's streams");
    const stretch = pdf.toString("latin1", Math.max(stretchFrom, k - DICT_WINDOW), k);
    const declared = /\/Length\s+(\d+)\s*>>\s*$/.exec(stretch.slice(-64))?.[1];
    const found = pdf.indexOf("endstream", start, "latin1");
    const end = Math.min(
      pdf.length,
      Math.max(declared ? start + Number(declared) : 0, found < 0 ? pdf.length : found),
    );
    let size: number;
    try {
      size = streamSize(pdf.subarray(start, end), filterChains(pdf, stretch), budget.perStreamBytes);
    } catch (e) {
      if (e instanceof OverCap)
        throw bomb(`a stream that unpacks to more than ${Math.round(budget.perStreamBytes / MB)} MB`);
      throw e;
    }
    total += size;
    if (total > budget.totalBytes)
      throw bomb(`streams that unpack to more than ${Math.round(budget.totalBytes / MB)} MB in all`);
    if (found >= 0) pos = stretchFrom = found + 9;
  }
}
