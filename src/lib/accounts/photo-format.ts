import "server-only";
import type { AvatarType } from "../db/schema";

// What a profile photo must be before it is stored and shown to visitors: PNG, JPEG or WebP recognised by its
// first bytes (never by the file's name or the browser's type, both of which the uploader chooses), at most
// 256 KB, with a readable header whose pixel size is sane. The size check matters because a few kilobytes can
// declare a huge canvas that a visitor's browser would have to decode. Without an image library the photo is
// not re-encoded; instead the metadata blocks a camera writes (EXIF with its GPS position, XMP, IPTC, text
// chunks) are cut out, so the stored file shows the same picture and says nothing else about the person.

export const PHOTO_MAX_BYTES = 256 * 1024;
export const PHOTO_MAX_SIDE = 2048;

export type CheckedPhoto = { type: AvatarType; width: number; height: number; bytes: Buffer };

/** Why a file is not a usable photo: the sentence the account page shows. */
export type PhotoProblem = "empty" | "too_big" | "not_an_image" | "broken" | "too_large_canvas";

export const PHOTO_PROBLEM_TEXT: Record<PhotoProblem, string> = {
  empty: "Choose a photo first.",
  too_big: "The photo is larger than 256 KB. Make it smaller and try again.",
  not_an_image: "Use a PNG, JPEG or WebP image.",
  broken: "This image file looks damaged. Save it again and try once more.",
  too_large_canvas: `The photo may be at most ${PHOTO_MAX_SIDE} × ${PHOTO_MAX_SIDE} pixels.`,
};

export function checkPhoto(input: Uint8Array): CheckedPhoto | PhotoProblem {
  if (input.length === 0) return "empty";
  if (input.length > PHOTO_MAX_BYTES) return "too_big";
  const b = Buffer.from(input.buffer, input.byteOffset, input.length);
  const type = sniff(b);
  if (!type) return "not_an_image";
  const read = type === "image/png" ? readPng(b) : type === "image/jpeg" ? readJpeg(b) : readWebp(b);
  if (!read) return "broken";
  const { width, height, bytes } = read;
  if (width < 1 || height < 1) return "broken";
  if (width > PHOTO_MAX_SIDE || height > PHOTO_MAX_SIDE) return "too_large_canvas";
  return { type, width, height, bytes };
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function sniff(b: Buffer): AvatarType | null {
  if (b.length >= 8 && b.subarray(0, 8).equals(PNG_SIGNATURE)) return "image/png";
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return "image/jpeg";
  if (b.length >= 12 && b.toString("latin1", 0, 4) === "RIFF" && b.toString("latin1", 8, 12) === "WEBP")
    return "image/webp";
  return null;
}

type Read = { width: number; height: number; bytes: Buffer } | null;

/** Chunks that carry words or dates about the picture, not the picture. */
const PNG_DROP = new Set(["tEXt", "zTXt", "iTXt", "eXIf", "tIME"]);

function readPng(b: Buffer): Read {
  const keep: Buffer[] = [PNG_SIGNATURE];
  let at = 8;
  let size: { width: number; height: number } | null = null;
  while (at + 12 <= b.length) {
    const len = b.readUInt32BE(at);
    const type = b.toString("latin1", at + 4, at + 8);
    const end = at + 12 + len;
    if (end > b.length) return null;
    if (!size) {
      // The first chunk must be the 13-byte header.
      if (type !== "IHDR" || len !== 13) return null;
      size = { width: b.readUInt32BE(at + 8), height: b.readUInt32BE(at + 12) };
    }
    if (!PNG_DROP.has(type)) keep.push(b.subarray(at, end));
    at = end;
    if (type === "IEND") return { ...size, bytes: Buffer.concat(keep) };
  }
  return null;
}

function isSof(marker: number): boolean {
  // Start-of-frame markers C0–CF, except C4 (Huffman tables), C8 (reserved) and CC (arithmetic coding).
  return marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
}

/** APP1 (EXIF, XMP), APP13 (IPTC) and comments; APP0 (JFIF), APP2 (colour profile) and APP14 stay. */
const JPEG_DROP = new Set([0xe1, 0xed, 0xfe]);

function readJpeg(b: Buffer): Read {
  const keep: Buffer[] = [b.subarray(0, 2)];
  let at = 2;
  let size: { width: number; height: number } | null = null;
  while (at + 4 <= b.length) {
    if (b[at] !== 0xff) return null;
    const marker = b[at + 1] as number;
    if (marker === 0xff) {
      at += 1; // fill byte
      continue;
    }
    const len = b.readUInt16BE(at + 2);
    const end = at + 2 + len;
    if (len < 2 || end > b.length) return null;
    if (isSof(marker)) {
      if (len < 7) return null;
      size = { height: b.readUInt16BE(at + 5), width: b.readUInt16BE(at + 7) };
    }
    if (marker === 0xda) {
      // Start of scan: the compressed picture follows to the end; it must have said its size by now.
      if (!size) return null;
      keep.push(b.subarray(at));
      return { ...size, bytes: Buffer.concat(keep) };
    }
    if (!JPEG_DROP.has(marker)) keep.push(b.subarray(at, end));
    at = end;
  }
  return null;
}

const WEBP_DROP = new Set(["EXIF", "XMP "]);

function readWebp(b: Buffer): Read {
  const riffEnd = 8 + b.readUInt32LE(4);
  if (riffEnd > b.length || riffEnd < 20) return null;
  const keep: Buffer[] = [];
  let at = 12;
  let size: { width: number; height: number } | null = null;
  let vp8x: Buffer | null = null;
  while (at + 8 <= riffEnd) {
    const type = b.toString("latin1", at, at + 4);
    const len = b.readUInt32LE(at + 4);
    const data = at + 8;
    const end = data + len + (len % 2); // chunks are padded to an even length
    if (data + len > riffEnd) return null;
    if (!size) size = webpSize(type, b.subarray(data, data + len));
    if (type === "VP8X") {
      // A copy, so the metadata flags can be cleared without touching the caller's buffer.
      vp8x = Buffer.from(b.subarray(at, Math.min(end, riffEnd)));
      keep.push(vp8x);
    } else if (!WEBP_DROP.has(type)) keep.push(b.subarray(at, Math.min(end, riffEnd)));
    at = end;
  }
  if (!size) return null;
  // VP8X flags: 0x08 says an EXIF chunk follows, 0x04 an XMP chunk; neither does any more.
  if (vp8x && vp8x.length > 8) vp8x[8] = (vp8x[8] as number) & ~0x0c;
  const body = Buffer.concat(keep);
  const head = Buffer.alloc(12);
  head.write("RIFF", 0, "latin1");
  head.writeUInt32LE(body.length + 4, 4);
  head.write("WEBP", 8, "latin1");
  return { ...size, bytes: Buffer.concat([head, body]) };
}

function webpSize(type: string, d: Buffer): { width: number; height: number } | null {
  if (type === "VP8X" && d.length >= 10)
    return { width: 1 + d.readUIntLE(4, 3), height: 1 + d.readUIntLE(7, 3) };
  if (type === "VP8L" && d.length >= 5 && d[0] === 0x2f) {
    const bits = d.readUInt32LE(1);
    return { width: 1 + (bits & 0x3fff), height: 1 + ((bits >> 14) & 0x3fff) };
  }
  if (type === "VP8 " && d.length >= 10 && d[3] === 0x9d && d[4] === 0x01 && d[5] === 0x2a)
    return { width: d.readUInt16LE(6) & 0x3fff, height: d.readUInt16LE(8) & 0x3fff };
  return null;
}
