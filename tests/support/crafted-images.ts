import { crc32 } from "node:zlib";
import sharp from "sharp";

// Real, decodable photos with metadata hidden where a chunk-by-chunk stripper does not look (issue #44), built
// for the profile-photo tests after the formats' own specifications: PNG (W3C PNG Specification, 3rd edition:
// chunk = length, type, data, CRC-32; a lower-case first letter makes a chunk ancillary, a lower-case second
// letter private), JPEG (ITU-T T.81 Annex B: APPn segments 0xE0–0xEF, markers allowed between the scans of a
// progressive image, nothing read after EOI), WebP (Google's "WebP Container Specification": RIFF chunks with
// four-character tags, VP8X's EXIF flag 0x08). The pictures themselves come from sharp.

/** The words every crafted file hides; none of them may be in a stored photo. */
export const SECRETS = [
  "GPSLatitude 48.8584 N",
  "GPSLongitude 2.2945 E",
  "home-address-marker",
  "private-chunk-marker",
  "after-eoi-marker",
  "between-scans-marker",
  "app4-marker",
  "app12-marker",
  "webp-exif-marker",
];

const picture = (w: number, h: number) =>
  sharp({ create: { width: w, height: h, channels: 3, background: { r: 200, g: 40, b: 90 } } });

function pngChunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, "latin1"), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}

/** A PNG with metadata in an eXIf chunk, look-alikes of it (exIf, zxIf), private chunks and after IEND. */
export async function pngWithHiddenMetadata(w = 24, h = 16): Promise<Buffer> {
  const clean = await picture(w, h).png().toBuffer();
  const iend = clean.length - 12;
  const gps = Buffer.from(`MM\0*\0\0\0\x08 ${SECRETS[0]} ${SECRETS[1]}`, "latin1");
  return Buffer.concat([
    clean.subarray(0, 33), // signature and IHDR
    pngChunk("eXIf", gps),
    pngChunk("exIf", gps),
    pngChunk("zxIf", Buffer.from(`${SECRETS[2]} ${SECRETS[0]}`, "latin1")),
    pngChunk("prVt", Buffer.from(SECRETS[3] as string, "latin1")),
    pngChunk("iTXt", Buffer.from(`XML:com.adobe.xmp\0\0\0\0\0${SECRETS[1]}`, "latin1")),
    clean.subarray(33, iend),
    pngChunk("gpSx", Buffer.from(SECRETS[0] as string, "latin1")), // between IDAT and IEND
    clean.subarray(iend),
    Buffer.from(SECRETS[4] as string, "latin1"),
  ]);
}

function jpegSegment(marker: number, data: Buffer): Buffer {
  const head = Buffer.from([0xff, marker, 0, 0]);
  head.writeUInt16BE(data.length + 2, 2);
  return Buffer.concat([head, data]);
}

/** A progressive JPEG with EXIF, APP4 and APP12 segments, a comment between its scans, and data after EOI. */
export async function jpegWithHiddenMetadata(w = 32, h = 24): Promise<Buffer> {
  const clean = await picture(w, h).jpeg({ progressive: true }).toBuffer();
  // The second start-of-scan: everything before it is the first scan and the tables.
  const first = clean.indexOf(Buffer.from([0xff, 0xda]));
  const second = clean.indexOf(Buffer.from([0xff, 0xda]), first + 2);
  if (first < 0 || second < 0) throw new Error("sharp wrote a JPEG with one scan");
  return Buffer.concat([
    clean.subarray(0, 2), // SOI
    jpegSegment(0xe1, Buffer.from(`Exif\0\0MM\0*\0\0\0\x08${SECRETS[0]} ${SECRETS[1]}`, "latin1")),
    jpegSegment(0xe4, Buffer.from(SECRETS[6] as string, "latin1")),
    jpegSegment(0xec, Buffer.from(`Ducky\0${SECRETS[7]}`, "latin1")),
    clean.subarray(2, second),
    jpegSegment(0xfe, Buffer.from(SECRETS[5] as string, "latin1")),
    jpegSegment(0xe4, Buffer.from(SECRETS[0] as string, "latin1")),
    clean.subarray(second),
    Buffer.from(`${SECRETS[4]} ${SECRETS[1]}`, "latin1"),
  ]);
}

function riffChunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.write(type, 0, "latin1");
  head.writeUInt32LE(data.length, 4);
  return Buffer.concat([head, data, data.length % 2 ? Buffer.alloc(1) : Buffer.alloc(0)]);
}

/** A WebP in the extended format with a lower-case `exif` chunk (and an upper-case one, and XMP). */
export async function webpWithHiddenMetadata(w = 20, h = 20): Promise<Buffer> {
  const clean = await picture(w, h).webp({ quality: 80 }).toBuffer();
  const image = clean.subarray(12); // the VP8 chunk of a simple-format file
  const x = Buffer.alloc(10);
  x[0] = 0x08 | 0x04; // EXIF and XMP present
  x.writeUIntLE(w - 1, 4, 3);
  x.writeUIntLE(h - 1, 7, 3);
  const body = Buffer.concat([
    riffChunk("VP8X", x),
    image,
    riffChunk("exif", Buffer.from(`MM\0*\0\0\0\x08${SECRETS[8]} ${SECRETS[0]}`, "latin1")),
    riffChunk("EXIF", Buffer.from(`MM\0*\0\0\0\x08${SECRETS[1]}`, "latin1")),
    riffChunk("XMP ", Buffer.from(`<x:xmpmeta>${SECRETS[2]}</x:xmpmeta>`, "latin1")),
  ]);
  const head = Buffer.alloc(12);
  head.write("RIFF", 0, "latin1");
  head.writeUInt32LE(body.length + 4, 4);
  head.write("WEBP", 8, "latin1");
  return Buffer.concat([head, body]);
}

/** The secrets still readable in `b`, in any case. */
export function secretsIn(b: Buffer): string[] {
  const text = b.toString("latin1").toLowerCase();
  return SECRETS.filter((s) => text.includes(s.toLowerCase()) || text.includes(s.slice(0, 12).toLowerCase()));
}
