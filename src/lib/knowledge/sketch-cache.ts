import "server-only";
import { SKETCH_WORDS } from "./vectors";

// The businesses' vector sketches in this instance's memory, so that a vector search scans them in
// JavaScript (about a millisecond for 10,000) instead of sorting every code in SQL, and reads from the
// database only the nearest few (drizzle/0039). Each entry also keeps its vector in int8 (one byte a
// dimension, scaled to the vector's largest component), so the shortlist is reranked by cosine here too and
// the read by id carries no vector bytes: on PGlite that read shares one backend with the full-text search,
// and 64 rows of vectors made it twice as long. The database stays the truth: a set is filled from it, caught
// up by seq before it is trusted again, and an id the database no longer has is forgotten when a read by id
// misses it. Nothing here decides what a business may see: the ids are only a shortlist for a read under
// row-level security, keyed by the tenant the guard entered.

/** Memory for all sets together; the least recently searched business's set goes first. */
export const CACHE_BUDGET_BYTES = 64 * 1024 * 1024;
/** Per entry besides its vector: its sketch (128 bytes), its norm, its id string and its slot in the id map. */
const BYTES_PER_ENTRY = SKETCH_WORDS * 4 + 4 + 120;

export class SketchSet {
  /** The newest seq this set holds everything up to; -1 before its first load. */
  seq = -1;
  private ids: string[] = [];
  private words = new Uint32Array(0);
  /** The int8 vectors, `dim` bytes a slot, and each one's length (0 for a zero vector). */
  private vecs = new Int8Array(0);
  private norms = new Float32Array(0);
  private slots = new Map<string, number>();
  private live = 0;
  /** One catching-up at a time: concurrent searches wait for the same load. */
  catchingUp: Promise<void> | null = null;

  constructor(readonly dim: number) {}

  get size(): number {
    return this.live;
  }

  get bytes(): number {
    return this.ids.length * (BYTES_PER_ENTRY + this.dim);
  }

  /** Adds or replaces a chunk's sketch (128 bytes) and vector (float32 bytes), both as stored. */
  put(id: string, sketch: Uint8Array, vector: Uint8Array): void {
    if (sketch.byteLength !== SKETCH_WORDS * 4 || vector.byteLength !== this.dim * 4) return;
    let slot = this.slots.get(id);
    if (slot === undefined) {
      slot = this.ids.length;
      if (slot >= this.norms.length) this.resize(Math.max(1024, this.norms.length * 2), this.ids.length);
      this.ids.push(id);
      this.slots.set(id, slot);
      this.live++;
    }
    const view = new DataView(sketch.buffer, sketch.byteOffset, sketch.byteLength);
    for (let w = 0; w < SKETCH_WORDS; w++) this.words[slot * SKETCH_WORDS + w] = view.getUint32(w * 4, true);
    const floats = new DataView(vector.buffer, vector.byteOffset, vector.byteLength);
    let max = 0;
    for (let i = 0; i < this.dim; i++) max = Math.max(max, Math.abs(floats.getFloat32(i * 4, true)));
    const scale = max > 0 && Number.isFinite(max) ? 127 / max : 0;
    let sum = 0;
    for (let i = 0; i < this.dim; i++) {
      const x = Math.round(floats.getFloat32(i * 4, true) * scale);
      this.vecs[slot * this.dim + i] = x;
      sum += x * x;
    }
    this.norms[slot] = Math.sqrt(sum);
  }

  /** Room for `slots` entries, the first `used` of them copied over. */
  private resize(slots: number, used: number): void {
    const words = new Uint32Array(slots * SKETCH_WORDS);
    words.set(this.words.subarray(0, used * SKETCH_WORDS));
    const vecs = new Int8Array(slots * this.dim);
    vecs.set(this.vecs.subarray(0, used * this.dim));
    const norms = new Float32Array(slots);
    norms.set(this.norms.subarray(0, used));
    this.words = words;
    this.vecs = vecs;
    this.norms = norms;
  }

  /** Forgets a chunk the database no longer has for this set; compacts once half the slots are dead. */
  forget(id: string): void {
    const slot = this.slots.get(id);
    if (slot === undefined) return;
    this.slots.delete(id);
    this.ids[slot] = "";
    this.live--;
    if (this.live < this.ids.length / 2) this.compact();
  }

  private compact(): void {
    const ids: string[] = [];
    const { dim } = this;
    this.slots.clear();
    // Moves each live entry down to the next free slot, in place, then shrinks the arrays.
    this.ids.forEach((id, slot) => {
      if (!id) return;
      const to = ids.length;
      this.words.copyWithin(to * SKETCH_WORDS, slot * SKETCH_WORDS, (slot + 1) * SKETCH_WORDS);
      this.vecs.copyWithin(to * dim, slot * dim, (slot + 1) * dim);
      this.norms[to] = this.norms[slot]!;
      this.slots.set(id, to);
      ids.push(id);
    });
    this.ids = ids;
    this.resize(Math.max(1024, this.live * 2), ids.length);
  }

  /**
   * Cosine similarity of `query` (float, any length) to each id's int8 vector, best first; ids this set does
   * not hold are left out. The int8 rounding moves a cosine by well under 0.01 (tests/unit), far less than
   * the gaps the fusion acts on: it only orders the shortlist.
   */
  rerank(query: ArrayLike<number>, ids: string[]): { id: string; score: number }[] {
    if (query.length !== this.dim) return [];
    let qq = 0;
    for (let i = 0; i < this.dim; i++) qq += query[i]! * query[i]!;
    const qNorm = Math.sqrt(qq);
    const out: { id: string; score: number }[] = [];
    for (const id of ids) {
      const slot = this.slots.get(id);
      if (slot === undefined) continue;
      const base = slot * this.dim;
      let dot = 0;
      for (let i = 0; i < this.dim; i++) dot += query[i]! * this.vecs[base + i]!;
      const denom = qNorm * this.norms[slot]!;
      out.push({ id, score: denom > 0 ? dot / denom : 0 });
    }
    return out.sort((a, b) => b.score - a.score);
  }

  /**
   * The ids of the `n` sketches nearest `query` (Hamming distance), nearest first. A histogram of the
   * distances (0…1024) finds the cut in one more pass, without sorting every entry.
   */
  nearest(query: Uint32Array, n: number): string[] {
    const count = this.ids.length;
    const dist = new Uint16Array(count);
    const histogram = new Uint32Array(SKETCH_WORDS * 32 + 1);
    for (let slot = 0; slot < count; slot++) {
      if (!this.ids[slot]) continue;
      let d = 0;
      const base = slot * SKETCH_WORDS;
      for (let w = 0; w < SKETCH_WORDS; w++) {
        // popcount32, inlined: this loop runs 32 times per chunk on the event loop (0.7 instead of 1 ms at 10,000).
        let x = this.words[base + w]! ^ query[w]!;
        x -= (x >>> 1) & 0x55555555;
        x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
        d += Math.imul((x + (x >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24;
      }
      dist[slot] = d;
      histogram[d]!++;
    }
    let cut = 0;
    for (let seen = 0; cut < histogram.length; cut++) {
      seen += histogram[cut]!;
      if (seen >= n) break;
    }
    const chosen: number[] = [];
    for (let slot = 0; slot < count; slot++) if (this.ids[slot] && dist[slot]! <= cut) chosen.push(slot);
    chosen.sort((a, b) => dist[a]! - dist[b]! || a - b);
    return chosen.slice(0, n).map((slot) => this.ids[slot]!);
  }
}

// Per database handle (tests open several in one process), then per business, model and dimension, in the
// order they were last searched.
const byDatabase = new WeakMap<object, Map<string, SketchSet>>();

/** The set of one business's vectors of one model and dimension, made most recently used. */
export function sketchSet(db: object, tenantId: string, model: string, dim: number): SketchSet {
  let sets = byDatabase.get(db);
  if (!sets) {
    sets = new Map();
    byDatabase.set(db, sets);
  }
  const key = `${tenantId}\u0000${model}\u0000${dim}`;
  const set = sets.get(key) ?? new SketchSet(dim);
  sets.delete(key);
  sets.set(key, set);
  return set;
}

/** Drops the least recently searched sets while all together pass the budget (never the one in use). */
export function trimSketchSets(db: object, keep: SketchSet, budget = CACHE_BUDGET_BYTES): void {
  const sets = byDatabase.get(db);
  if (!sets) return;
  let total = 0;
  for (const s of sets.values()) total += s.bytes;
  for (const [key, s] of sets) {
    if (total <= budget) break;
    if (s === keep) continue;
    sets.delete(key);
    total -= s.bytes;
  }
}
