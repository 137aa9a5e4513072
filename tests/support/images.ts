import { crc32, deflateSync } from "node:zlib";

// Small image files built byte by byte for the profile-photo tests, after the formats' own specifications:
// PNG (W3C PNG Specification, 3rd edition: signature, IHDR, IDAT, IEND, CRC-32 over type and data), JPEG
// (ITU-T T.81 Annex B: SOI, APPn, SOF0, SOS, EOI markers with big-endian lengths; EXIF in APP1 per CIPA
// DC-008), WebP (Google's "WebP Container Specification": RIFF, VP8L with its 0x2f signature and 14-bit
// sizes, VP8X with 24-bit canvas sizes and the EXIF flag 0x08). Only the PNG decodes to a real picture; the
// others are structurally valid, enough for the header checks (real JPEG and WebP files: crafted-images.ts).

function pngChunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, "latin1"), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}

/** A real PNG, `width` × `height`, filled with one RGB colour; `text` adds a tEXt chunk (metadata). */
export function png(width: number, height: number, rgb = [0xe1, 0x1d, 0x48], text?: string): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // truecolour
  const row = Buffer.concat([Buffer.from([0]), Buffer.from(Array.from({ length: width }, () => rgb).flat())]);
  // A huge declared canvas needs no pixels to be refused: skip the picture data then.
  const pixels = width * height <= 512 * 512 ? Buffer.concat(Array.from({ length: height }, () => row)) : row;
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk("IHDR", ihdr),
    ...(text ? [pngChunk("tEXt", Buffer.from(`Comment\0${text}`, "latin1"))] : []),
    pngChunk("IDAT", deflateSync(pixels)),
    pngChunk("IEND", Buffer.alloc(0)),
  ]);
}

function jpegSegment(marker: number, data: Buffer): Buffer {
  const head = Buffer.from([0xff, marker, 0, 0]);
  head.writeUInt16BE(data.length + 2, 2);
  return Buffer.concat([head, data]);
}

/** A JPEG's structure (SOF0 with the size, one scan); `exif` adds an APP1 EXIF segment with those words. */
export function jpeg(width: number, height: number, exif?: string): Buffer {
  const sof = Buffer.from([8, 0, 0, 0, 0, 1, 1, 0x11, 0]);
  sof.writeUInt16BE(height, 1);
  sof.writeUInt16BE(width, 3);
  return Buffer.concat([
    Buffer.from([0xff, 0xd8]),
    jpegSegment(0xe0, Buffer.from("JFIF\0\x01\x01\0\0\x01\0\x01\0\0", "latin1")),
    ...(exif ? [jpegSegment(0xe1, Buffer.from(`Exif\0\0${exif}`, "latin1"))] : []),
    jpegSegment(0xc0, sof),
    jpegSegment(0xda, Buffer.from([1, 1, 0, 0, 0x3f, 0])),
    Buffer.from([0x12, 0x34, 0x56, 0xff, 0xd9]),
  ]);
}

function riffChunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.write(type, 0, "latin1");
  head.writeUInt32LE(data.length, 4);
  return Buffer.concat([head, data, data.length % 2 ? Buffer.alloc(1) : Buffer.alloc(0)]);
}

/** A lossless WebP's structure; `exif` wraps it in VP8X with an EXIF chunk carrying those words. */
export function webp(width: number, height: number, exif?: string): Buffer {
  const vp8l = Buffer.alloc(5);
  vp8l[0] = 0x2f;
  vp8l.writeUInt32LE(((width - 1) & 0x3fff) | (((height - 1) & 0x3fff) << 14), 1);
  const chunks = [riffChunk("VP8L", vp8l)];
  if (exif) {
    const x = Buffer.alloc(10);
    x[0] = 0x08;
    x.writeUIntLE(width - 1, 4, 3);
    x.writeUIntLE(height - 1, 7, 3);
    chunks.unshift(riffChunk("VP8X", x));
    chunks.push(riffChunk("EXIF", Buffer.from(exif, "latin1")));
  }
  const body = Buffer.concat(chunks);
  const head = Buffer.alloc(12);
  head.write("RIFF", 0, "latin1");
  head.writeUInt32LE(body.length + 4, 4);
  head.write("WEBP", 8, "latin1");
  return Buffer.concat([head, body]);
}
