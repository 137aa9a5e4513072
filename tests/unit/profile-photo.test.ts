import { describe, expect, it } from "vitest";
import { checkPhoto, PHOTO_MAX_BYTES } from "@/lib/accounts/photo-format";
import { openAvatarRef, sealAvatarRef } from "@/lib/security/avatar-token";
import { jpeg, png, webp } from "../support/images";

// A profile photo is recognised by its bytes, never its name; it must be small in bytes and in pixels, and
// the metadata a camera writes (where the picture was taken) does not survive the upload.

describe("checkPhoto", () => {
  it("recognises PNG, JPEG and WebP by their first bytes and reads their pixel size", () => {
    expect(checkPhoto(png(40, 30))).toMatchObject({ type: "image/png", width: 40, height: 30 });
    expect(checkPhoto(jpeg(640, 480))).toMatchObject({ type: "image/jpeg", width: 640, height: 480 });
    expect(checkPhoto(webp(300, 200))).toMatchObject({ type: "image/webp", width: 300, height: 200 });
    expect(checkPhoto(webp(64, 48, "GPS 48.85N 2.35E"))).toMatchObject({ width: 64, height: 48 });
  });

  it("refuses what only looks like an image by its name or type: SVG, GIF, HTML, text", () => {
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');
    expect(checkPhoto(svg)).toBe("not_an_image");
    expect(checkPhoto(Buffer.from("GIF89a\x01\x00\x01\x00", "latin1"))).toBe("not_an_image");
    expect(checkPhoto(Buffer.from("<!doctype html><img src=x onerror=alert(1)>"))).toBe("not_an_image");
    // An HTML page behind a PNG's name is still HTML: only the bytes count.
    expect(checkPhoto(Buffer.concat([Buffer.from("<html>"), png(2, 2)]))).toBe("not_an_image");
    expect(checkPhoto(new Uint8Array())).toBe("empty");
  });

  it("refuses a file over 256 KB, even a genuine image", () => {
    const big = Buffer.concat([png(4, 4), Buffer.alloc(PHOTO_MAX_BYTES)]);
    expect(checkPhoto(big)).toBe("too_big");
    expect(checkPhoto(Buffer.alloc(PHOTO_MAX_BYTES + 1, 0xff))).toBe("too_big");
  });

  it("refuses a huge canvas a few bytes can declare, and a cut-off or damaged file", () => {
    expect(checkPhoto(png(20_000, 20_000))).toBe("too_large_canvas");
    expect(checkPhoto(jpeg(4000, 10))).toBe("too_large_canvas");
    expect(checkPhoto(webp(2049, 100))).toBe("too_large_canvas");
    const whole = png(8, 8);
    expect(checkPhoto(whole.subarray(0, whole.length - 6))).toBe("broken");
    expect(checkPhoto(jpeg(10, 10).subarray(0, 12))).toBe("broken");
    const noSize = Buffer.from([0xff, 0xd8, 0xff, 0xda, 0x00, 0x02, 0x00]);
    expect(checkPhoto(noSize)).toBe("broken");
  });

  it("cuts out the metadata a camera writes and keeps the picture", () => {
    const where = "GPSLatitude 48.8584 GPSLongitude 2.2945";
    for (const file of [png(6, 6, undefined, where), jpeg(6, 6, where), webp(6, 6, where)]) {
      const checked = checkPhoto(file);
      if (typeof checked === "string") throw new Error(checked);
      expect(file.toString("latin1")).toContain("GPSLatitude");
      expect(checked.bytes.toString("latin1")).not.toContain("GPSLatitude");
      expect(checkPhoto(checked.bytes)).toMatchObject({ type: checked.type, width: 6, height: 6 });
    }
    // Without metadata the file is stored as it came.
    const plain = png(6, 6);
    expect((checkPhoto(plain) as { bytes: Buffer }).bytes.equals(plain)).toBe(true);
    // The WebP header says no EXIF follows any more, and its RIFF size matches the new length.
    const w = (checkPhoto(webp(6, 6, where)) as { bytes: Buffer }).bytes;
    expect(w.readUInt32LE(4)).toBe(w.length - 8);
    expect((w[20] as number) & 0x08).toBe(0);
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
