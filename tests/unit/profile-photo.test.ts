import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { checkPhoto, PHOTO_MAX_BYTES } from "@/lib/accounts/photo-format";
import { openAvatarRef, sealAvatarRef } from "@/lib/security/avatar-token";
import {
  jpegWithHiddenMetadata,
  pngWithHiddenMetadata,
  secretsIn,
  webpWithHiddenMetadata,
} from "../support/crafted-images";
import { jpeg, png, webp } from "../support/images";

// A profile photo is recognised by its bytes, never its name; it must be small in bytes and in pixels, and
// the metadata a camera writes (where the picture was taken) does not survive the upload.

describe("checkPhoto", () => {
  it("recognises PNG, JPEG and WebP by their first bytes and reads their pixel size", async () => {
    expect(await checkPhoto(png(40, 30))).toMatchObject({ type: "image/png", width: 40, height: 30 });
    const j = await sharp(png(64, 48)).jpeg().toBuffer();
    expect(await checkPhoto(j)).toMatchObject({ type: "image/jpeg", width: 64, height: 48 });
    const w = await sharp(png(30, 20)).webp().toBuffer();
    expect(await checkPhoto(w)).toMatchObject({ type: "image/webp", width: 30, height: 20 });
  });

  it("refuses what only looks like an image by its name or type: SVG, GIF, HTML, text", async () => {
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');
    expect(await checkPhoto(svg)).toBe("not_an_image");
    expect(await checkPhoto(Buffer.from("GIF89a\x01\x00\x01\x00", "latin1"))).toBe("not_an_image");
    expect(await checkPhoto(Buffer.from("<!doctype html><img src=x onerror=alert(1)>"))).toBe("not_an_image");
    // An HTML page behind a PNG's name is still HTML: only the bytes count.
    expect(await checkPhoto(Buffer.concat([Buffer.from("<html>"), png(2, 2)]))).toBe("not_an_image");
    expect(await checkPhoto(new Uint8Array())).toBe("empty");
  });

  it("refuses a file over 256 KB, even a genuine image", async () => {
    const big = Buffer.concat([png(4, 4), Buffer.alloc(PHOTO_MAX_BYTES)]);
    expect(await checkPhoto(big)).toBe("too_big");
    expect(await checkPhoto(Buffer.alloc(PHOTO_MAX_BYTES + 1, 0xff))).toBe("too_big");
  });

  it("refuses a huge canvas a few bytes can declare, and a cut-off or damaged file", async () => {
    expect(await checkPhoto(png(20_000, 20_000))).toBe("too_large_canvas");
    expect(await checkPhoto(jpeg(4000, 10))).toBe("too_large_canvas");
    expect(await checkPhoto(webp(2049, 100))).toBe("too_large_canvas");
    const whole = png(8, 8);
    expect(await checkPhoto(whole.subarray(0, whole.length - 30))).toBe("broken");
    expect(await checkPhoto(jpeg(10, 10).subarray(0, 12))).toBe("broken");
    // A JPEG's structure with no real picture in its scan cannot be decoded.
    expect(await checkPhoto(jpeg(10, 10))).toBe("broken");
    const noSize = Buffer.from([0xff, 0xd8, 0xff, 0xda, 0x00, 0x02, 0x00]);
    expect(await checkPhoto(noSize)).toBe("broken");
  });

  // Issue #44: a chunk-by-chunk stripper kept what it did not know to look for.
  it("rebuilds the photo from its pixels: no metadata survives wherever it hid, and the picture remains", async () => {
    for (const [name, file] of [
      ["PNG with eXIf, exIf, zxIf, private chunks and data after IEND", await pngWithHiddenMetadata()],
      ["JPEG with EXIF, APP4, APP12, data between scans and after EOI", await jpegWithHiddenMetadata()],
      ["WebP with a lower-case exif chunk", await webpWithHiddenMetadata()],
    ] as const) {
      expect(secretsIn(file).length, name).toBeGreaterThan(0);
      const before = await sharp(file).metadata();
      const checked = await checkPhoto(file);
      if (typeof checked === "string") throw new Error(`${name}: ${checked}`);
      expect(secretsIn(checked.bytes), name).toEqual([]);
      const after = await sharp(checked.bytes).metadata();
      expect(after, name).toMatchObject({
        format: before.format,
        width: before.width,
        height: before.height,
      });
      expect(after.exif, name).toBeUndefined();
      expect(after.xmp, name).toBeUndefined();
      expect(after.comments ?? [], name).toEqual([]);
      // Still the same picture: the colour it was drawn in, give or take the encoder.
      const { dominant } = await sharp(checked.bytes).stats();
      expect(
        Math.abs(dominant.r - 200) + Math.abs(dominant.g - 40) + Math.abs(dominant.b - 90),
        name,
      ).toBeLessThan(60);
    }
  });

  it("turns a photo upright by its EXIF orientation, since the tag itself is dropped", async () => {
    const sideways = await sharp(png(40, 20)).jpeg().withMetadata({ orientation: 6 }).toBuffer();
    expect(await checkPhoto(sideways)).toMatchObject({ type: "image/jpeg", width: 20, height: 40 });
  });
});

describe("the visitor's photo address", () => {
  const secret = "x".repeat(40);
  const ref = {
    tenantId: "0b5c1e36-54a4-4a07-9d6f-3a3e8f7f2a01",
    visitorId: "visitor-aaaaaaaaaaaa",
    userId: "6a1d7c3e-1f0b-4c5e-8d2a-9b7f0e4c3d21",
    version: "0123456789abcdef",
  };

  it("names the person without their user id, and opens for that tenant and visitor only", () => {
    const token = sealAvatarRef(secret, ref);
    expect(token).not.toContain(ref.userId);
    expect(token).not.toContain(ref.userId.replace(/-/g, ""));
    expect(Buffer.from(token, "base64url").toString("hex")).not.toContain(ref.userId.replace(/-/g, ""));
    expect(openAvatarRef(secret, token, ref)).toEqual({ userId: ref.userId, version: ref.version });
    expect(
      openAvatarRef(secret, token, { ...ref, tenantId: "0b5c1e36-54a4-4a07-9d6f-3a3e8f7f2a02" }),
    ).toBeNull();
    expect(openAvatarRef(secret, token, { ...ref, visitorId: "visitor-bbbbbbbbbbbb" })).toBeNull();
    expect(openAvatarRef("y".repeat(40), token, ref)).toBeNull();
  });

  it("is the same address for the same photo (the browser's cache works) and a new one for a new photo", () => {
    expect(sealAvatarRef(secret, ref)).toBe(sealAvatarRef(secret, ref));
    expect(sealAvatarRef(secret, { ...ref, version: "fedcba9876543210" })).not.toBe(
      sealAvatarRef(secret, ref),
    );
  });

  it("cannot be altered: a changed character opens nothing", () => {
    const token = sealAvatarRef(secret, ref);
    for (const at of [0, 20, 60, 101]) {
      const c = token[at] === "A" ? "B" : "A";
      expect(openAvatarRef(secret, token.slice(0, at) + c + token.slice(at + 1), ref)).toBeNull();
    }
    expect(openAvatarRef(secret, "not-a-token", ref)).toBeNull();
  });
});
