import "server-only";
import sharp, { type Metadata } from "sharp";
import type { AvatarType } from "../db/schema";

// What a profile photo must be before it is stored and shown to visitors: PNG, JPEG or WebP recognised by its
// first bytes (never by the file's name or the browser's type, both of which the uploader chooses), at most
// 256 KB, with a pixel size that is sane. The size check comes first and from the header alone, because a few
// kilobytes can declare a huge canvas. The picture is then decoded, turned upright and encoded again in its
// own format from its pixels alone (sharp writes no metadata unless asked to, and is never asked): whatever a
// camera or an editor put beside the pixels (EXIF with its GPS position, XMP, IPTC, text and private chunks,
// bytes after the end of the image) has nowhere to survive, wherever in the file it was hidden.

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

// One photo at a time and no cache of decoded images: an upload is rare, and the server's memory is for chats.
sharp.cache(false);
sharp.concurrency(1);

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function sniff(b: Buffer): AvatarType | null {
  if (b.length >= 8 && b.subarray(0, 8).equals(PNG_SIGNATURE)) return "image/png";
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return "image/jpeg";
  if (b.length >= 12 && b.toString("latin1", 0, 4) === "RIFF" && b.toString("latin1", 8, 12) === "WEBP")
    return "image/webp";
  return null;
}

// A damaged file is refused rather than shown half; one frame only (an animated WebP keeps its first); and
// the decoder never takes a canvas past the bound, whatever a header further in claims.
const DECODE = {
  failOn: "error",
  animated: false,
  limitInputPixels: PHOTO_MAX_SIDE * PHOTO_MAX_SIDE,
} as const;

export async function checkPhoto(input: Uint8Array): Promise<CheckedPhoto | PhotoProblem> {
  if (input.length === 0) return "empty";
  if (input.length > PHOTO_MAX_BYTES) return "too_big";
  const b = Buffer.from(input.buffer, input.byteOffset, input.length);
  const type = sniff(b);
  if (!type) return "not_an_image";
  let header: Metadata;
  try {
    header = await sharp(b, { ...DECODE, limitInputPixels: false }).metadata();
  } catch {
    return "broken";
  }
  if (!header.width || !header.height) return "broken";
  if (header.width > PHOTO_MAX_SIDE || header.height > PHOTO_MAX_SIDE) return "too_large_canvas";
  try {
    const pipeline = sharp(b, DECODE)
      .rotate() // the EXIF orientation applied to the pixels, since the tag itself does not survive
      .resize(PHOTO_MAX_SIDE, PHOTO_MAX_SIDE, { fit: "inside", withoutEnlargement: true });
    const encoded =
      type === "image/png"
        ? pipeline.png({ compressionLevel: 9 })
        : type === "image/jpeg"
          ? pipeline.jpeg({ quality: 85, mozjpeg: true })
          : pipeline.webp({ quality: 85 });
    const { data, info } = await encoded.toBuffer({ resolveWithObject: true });
    return { type, width: info.width, height: info.height, bytes: data };
  } catch {
    return "broken";
  }
}
