import { describe, expect, it } from "vitest";
import { SketchSet, sketchSet, trimSketchSets } from "@/lib/knowledge/sketch-cache";
import { cosine, popcount32, SKETCH_WORDS, sketchBytes, sketchWords, toBytea } from "@/lib/knowledge/vectors";
import { mulberry32 } from "../support/seeded-random";

// The in-memory Hamming scan that shortlists chunks for the vector search (src/lib/knowledge/sketch-cache.ts):
// checked against a plain sort of every distance, and its bookkeeping (replace, forget, compact, budget).

const rand = mulberry32(39);
const vector = (dim: number) => Float32Array.from({ length: dim }, () => rand() - 0.5);

/** Puts a vector as the database stores it: its sketch and its float32 bytes. */
const putVector = (set: SketchSet, id: string, v: Float32Array) => set.put(id, sketchBytes(v), toBytea(v));

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
    const set = new SketchSet(64);
    const words = new Map<string, Uint32Array>();
    for (let i = 0; i < 3000; i++) {
      const v = vector(64);
      words.set(`c${i}`, sketchWords(v));
      putVector(set, `c${i}`, v);
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
    const set = new SketchSet(32);
    const v = vector(32);
    const away = Float32Array.from(v, (x) => -x);
    for (let i = 0; i < 100; i++) putVector(set, `c${i}`, i === 7 ? away : vector(32));
    expect(set.nearest(sketchWords(v), 1)).not.toEqual(["c7"]);
    expect(set.rerank(v, ["c7"])[0]?.score).toBeCloseTo(-1, 2);
    putVector(set, "c7", v);
    expect(set.rerank(v, ["c7"])[0]?.score).toBeCloseTo(1, 2);
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
    // After the compaction each id still has its own vector: c99 is still most like itself.
    const c99 = set.rerank(v, left).find((r) => r.id === "c99")!;
    expect(set.rerank(v, ["c99"])).toEqual([c99]);
    // A sketch or a vector of another length (not one of ours) is not taken.
    set.put("odd", Buffer.alloc(32), toBytea(v));
    set.put("short", sketchBytes(v), toBytea(vector(16)));
    expect(set.size).toBe(40);
    expect(set.rerank(v, ["odd", "short"])).toEqual([]);
  });

  it("reranks a shortlist by cosine on its int8 vectors in the order exact cosine gives", () => {
    const set = new SketchSet(256);
    const vectors = new Map<string, Float32Array>();
    for (let i = 0; i < 300; i++) {
      const v = vector(256);
      vectors.set(`c${i}`, v);
      putVector(set, `c${i}`, v);
    }
    const q = vector(256);
    const ranked = set.rerank(q, [...vectors.keys(), "unknown"]);
    expect(ranked).toHaveLength(300);
    const exact = [...vectors]
      .map(([id, v]) => ({ id, score: cosine(q, v) }))
      .sort((a, b) => b.score - a.score);
    // Rounding to int8 moves each cosine by far less than 0.01, so the best ten are the exact best ten.
    for (const r of ranked) expect(Math.abs(r.score - cosine(q, vectors.get(r.id)!))).toBeLessThan(0.01);
    expect(new Set(ranked.slice(0, 10).map((r) => r.id))).toEqual(
      new Set(exact.slice(0, 10).map((r) => r.id)),
    );
    expect(ranked.map((r) => r.score)).toEqual([...ranked.map((r) => r.score)].sort((a, b) => b - a));
    expect(set.rerank(vector(128), ["c1"])).toEqual([]);
  });

  it("keeps a set per database and business, and drops the least recently searched past the budget", () => {
    const db = {};
    const otherDb = {};
    const a = sketchSet(db, "tenant-a", "m", 32);
    expect(sketchSet(db, "tenant-a", "m", 32)).toBe(a);
    expect(sketchSet(db, "tenant-a", "m", 64)).not.toBe(a);
    expect(sketchSet(otherDb, "tenant-a", "m", 32)).not.toBe(a);
    for (let i = 0; i < 10; i++) putVector(a, `a${i}`, vector(32));
    const b = sketchSet(db, "tenant-b", "m", 32);
    for (let i = 0; i < 10; i++) putVector(b, `b${i}`, vector(32));
    sketchSet(db, "tenant-a", "m", 32); // a searched again: b is now the least recent
    trimSketchSets(db, a, a.bytes + 1);
    expect(sketchSet(db, "tenant-a", "m", 32)).toBe(a);
    expect(sketchSet(db, "tenant-b", "m", 32)).not.toBe(b);
  });
});
