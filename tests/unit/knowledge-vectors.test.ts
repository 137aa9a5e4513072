import { describe, expect, it } from "vitest";
import { cosine, fromBytea, normalize, toBytea } from "@/lib/knowledge/vectors";

describe("vectors", () => {
  it("normalises to unit length and leaves a zero vector zero", () => {
    const v = normalize([3, 4]);
    expect([...v]).toEqual([expect.closeTo(0.6, 6), expect.closeTo(0.8, 6)]);
    expect([...normalize([0, 0, 0])]).toEqual([0, 0, 0]);
  });

  it("stores float32 little-endian bytes and reads them back", () => {
    const bytes = toBytea([1, -2.5, 0.1]);
    expect(bytes.subarray(0, 4).toString("hex")).toBe("0000803f"); // 1.0f, little-endian
    expect(bytes.length).toBe(12);
    const back = fromBytea(bytes);
    expect([...back]).toEqual([1, -2.5, Math.fround(0.1)]);
    // A bytea read from a column arrives as a Buffer that may sit at any offset of a larger buffer.
    const inside = Buffer.concat([Buffer.from([9, 9, 9]), bytes]).subarray(3);
    expect([...fromBytea(inside)]).toEqual([...back]);
    expect(() => fromBytea(Buffer.alloc(6))).toThrow(/6 bytes/);
  });

  it("measures cosine similarity, refusing vectors of different dimensions", () => {
    expect(cosine([1, 0, 0], [2, 0, 0])).toBeCloseTo(1, 6);
    expect(cosine([1, 0, 0], [0, 1, 0])).toBeCloseTo(0, 6);
    expect(cosine([1, 0.2, 0], [1, 0, 0])).toBeGreaterThan(0.9);
    expect(cosine([1, 0], [0, 0])).toBe(0);
    expect(() => cosine([1], [1, 2])).toThrow();
  });
});
