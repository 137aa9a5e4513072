import { describe, expect, it } from "vitest";
import { SketchSet, sketchSet, trimSketchSets } from "@/lib/knowledge/sketch-cache";
import { popcount32, SKETCH_WORDS, sketchBytes, sketchWords } from "@/lib/knowledge/vectors";
import { mulberry32 } from "../support/seeded-random";

// The in-memory Hamming scan that shortlists chunks for the vector search (src/lib/knowledge/sketch-cache.ts):
// checked against a plain sort of every distance, and its bookkeeping (replace, forget, compact, budget).

const rand = mulberry32(39);
const vector = (dim: number) => Float32Array.from({ length: dim }, () => rand() - 0.5);

function distance(a: Uint32Array, b: Uint32Array): number {
  let d = 0;
  for (let w = 0; w < SKETCH_WORDS; w++) d += popcount32(a[w]! ^ b[w]!);
  return d;
}

describe("vector sketches in memory", () => {
  it("counts bits in any 32-bit word", () => {
    expect(popcount32(0)).toBe(0);
    expect(popcount32(0xffffffff)).toBe(32);
    expect(popcount32(0x80000001)).toBe(2);
    expect(popcount32(0x0f0f0f0f)).toBe(16);
  });

  it("sketches a vector in 1024 bits whose distance grows with the angle, the same as stored bytes", () => {
    const v = vector(96);
    const near = Float32Array.from(v, (x) => x + (rand() - 0.5) * 0.05);
    const opposite = Float32Array.from(v, (x) => -x);
    const w = sketchWords(v);
    expect(distance(w, sketchWords(v))).toBe(0);
    expect(distance(w, sketchWords(near))).toBeLessThan(120);
    expect(distance(w, sketchWords(opposite))).toBeGreaterThan(900);
    const bytes = sketchBytes(v);
    expect(bytes.length).toBe(128);
    expect(bytes.readUInt32LE(4)).toBe(w[1]);
  });

  it("shortlists exactly the nearest sketches a full sort finds, nearest first", () => {
    const set = new SketchSet();
    const words = new Map<string, Uint32Array>();
    for (let i = 0; i < 3000; i++) {
      const v = vector(64);
      words.set(`c${i}`, sketchWords(v));
      set.put(`c${i}`, sketchBytes(v));
    }
    for (let k = 0; k < 5; k++) {
      const q = sketchWords(vector(64));
      const got = set.nearest(q, 50);
      const all = [...words].map(([id, w]) => ({ id, d: distance(w, q) })).sort((a, b) => a.d - b.d);
      expect(got).toHaveLength(50);
      // Ties at the cut may pick either chunk; every chosen one is within the 50th distance, in order.
      const cut = all[49]!.d;
      const dists = got.map((id) => distance(words.get(id)!, q));
      expect(dists.every((d) => d <= cut)).toBe(true);
      expect([...dists].sort((a, b) => a - b)).toEqual(dists);
      expect(all.filter((e) => e.d < cut).every((e) => got.includes(e.id))).toBe(true);
    }
  });

  it("replaces a chunk's sketch in place and forgets a deleted chunk, compacting when half are gone", () => {
    const set = new SketchSet();
    const v = vector(32);
    const away = Float32Array.from(v, (x) => -x);
    for (let i = 0; i < 100; i++) set.put(`c${i}`, sketchBytes(i === 7 ? away : vector(32)));
    expect(set.nearest(sketchWords(v), 1)).not.toEqual(["c7"]);
    set.put("c7", sketchBytes(v));
    expect(set.size).toBe(100);
    expect(set.nearest(sketchWords(v), 1)).toEqual(["c7"]);
    set.forget("c7");
    expect(set.nearest(sketchWords(v), 100)).not.toContain("c7");
    for (let i = 0; i < 60; i++) set.forget(`c${i}`);
    expect(set.size).toBe(40);
    expect(set.bytes).toBeLessThan(100 * (SKETCH_WORDS * 4 + 120));
    const left = set.nearest(sketchWords(v), 100);
    expect(left).toHaveLength(40);
    expect(left.every((id) => Number(id.slice(1)) >= 60)).toBe(true);
    // A sketch of another length (not one of ours) is not taken.
    set.put("odd", Buffer.alloc(32));
    expect(set.size).toBe(40);
  });

  it("keeps a set per database and business, and drops the least recently searched past the budget", () => {
    const db = {};
    const otherDb = {};
    const a = sketchSet(db, "tenant-a", "m", 32);
    expect(sketchSet(db, "tenant-a", "m", 32)).toBe(a);
    expect(sketchSet(db, "tenant-a", "m", 64)).not.toBe(a);
    expect(sketchSet(otherDb, "tenant-a", "m", 32)).not.toBe(a);
    for (let i = 0; i < 10; i++) a.put(`a${i}`, sketchBytes(vector(32)));
    const b = sketchSet(db, "tenant-b", "m", 32);
    for (let i = 0; i < 10; i++) b.put(`b${i}`, sketchBytes(vector(32)));
    sketchSet(db, "tenant-a", "m", 32); // a searched again: b is now the least recent
    trimSketchSets(db, a, a.bytes + 1);
    expect(sketchSet(db, "tenant-a", "m", 32)).toBe(a);
    expect(sketchSet(db, "tenant-b", "m", 32)).not.toBe(b);
  });
});
