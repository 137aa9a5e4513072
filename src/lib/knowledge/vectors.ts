import "server-only";

// Vectors in a form plain Postgres and PGlite can store and search without pgvector: the full vector as
// float32 little-endian bytes in a `bytea` column (4 bytes a dimension), and a 1024-bit sketch (below) as
// 128 `bytea` bytes, which each instance scans in memory (./sketch-cache.ts). The nearest sketches are then
// reranked by cosine on the int8 copies of their vectors that the same cache keeps.

export type Vector = Float32Array;

/** The vector scaled to length 1 (a zero vector stays zero), so cosine similarity is a dot product. */
export function normalize(v: ArrayLike<number>): Vector {
  let sum = 0;
  for (let i = 0; i < v.length; i++) sum += (v[i] ?? 0) * (v[i] ?? 0);
  const out = new Float32Array(v.length);
  const norm = Math.sqrt(sum);
  if (norm === 0 || !Number.isFinite(norm)) return out;
  for (let i = 0; i < v.length; i++) out[i] = (v[i] ?? 0) / norm;
  return out;
}

/** float32 little-endian bytes, whatever the machine's byte order: what a `bytea` column stores. */
export function toBytea(v: ArrayLike<number>): Buffer {
  const buf = Buffer.alloc(v.length * 4);
  for (let i = 0; i < v.length; i++) buf.writeFloatLE(v[i] ?? 0, i * 4);
  return buf;
}

/** The vector a `bytea` value holds; refuses bytes that are no whole number of float32s. */
export function fromBytea(bytes: Uint8Array): Vector {
  if (bytes.byteLength % 4 !== 0)
    throw new Error(`a float32 vector cannot be ${bytes.byteLength} bytes long`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out = new Float32Array(bytes.byteLength / 4);
  for (let i = 0; i < out.length; i++) out[i] = view.getFloat32(i * 4, true);
  return out;
}

/** Cosine similarity (−1…1); 0 when either vector is zero. Vectors of different dimensions are refused. */
export function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length)
    throw new Error(`vectors of ${a.length} and ${b.length} dimensions cannot be compared`);
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] ?? 0;
    const y = b[i] ?? 0;
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

// Sketches (drizzle/0039). The sketch is the signs of 1024 fixed random projections of the vector rather than
// the signs of its own components: a projection mixes many components, so its sign is balanced even when the
// model's vectors are sparse or most of their components share a sign, and the share of differing bits
// estimates the angle between two vectors (SimHash, Charikar 2002). Each projection sums TAPS components with
// random signs (a sparse random projection above TAPS dimensions, Achlioptas 2003), so sketching costs at most
// 1024 × TAPS additions whatever the model's dimension. 1024 bits rather than 256 because the scan runs in
// memory (./sketch-cache.ts), where four times the bits cost a millisecond, and a closer estimate of the
// angle means fewer candidates to read for the exact rerank: on the bench's vectors the nearest 64 sketches
// held 93% of the exact 10 nearest, the nearest 200 of 256-bit codes 77% (bench/README.md).

export const SKETCH_BITS = 1024;
export const SKETCH_WORDS = SKETCH_BITS / 32;
const TAPS = 256;

type Projection = { index: Int32Array; sign: Float32Array };
const projections = new Map<number, Projection>();

/** The projections for one dimension: the same on every instance and every run (seeded by the dimension). */
function projectionFor(dim: number): Projection {
  const cached = projections.get(dim);
  if (cached) return cached;
  let s = (0x9e3779b9 ^ dim) >>> 0;
  const rand = () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let r = Math.imul(s ^ (s >>> 15), 1 | s);
    r = (r + Math.imul(r ^ (r >>> 7), 61 | r)) ^ r;
    return ((r ^ (r >>> 14)) >>> 0) / 4294967296;
  };
  // Up to TAPS dimensions every component is in every projection; above, TAPS of them drawn at random.
  const taps = Math.min(dim, TAPS);
  const index = new Int32Array(SKETCH_BITS * taps);
  const sign = new Float32Array(SKETCH_BITS * taps);
  for (let i = 0; i < index.length; i++) {
    index[i] = dim <= TAPS ? i % taps : Math.floor(rand() * dim);
    sign[i] = rand() < 0.5 ? -1 : 1;
  }
  const p = { index, sign };
  projections.set(dim, p);
  return p;
}

/** The vector's sketch as 32 words (bit b of the sketch is bit b % 32 of word b / 32). */
export function sketchWords(v: ArrayLike<number>): Uint32Array {
  const { index, sign } = projectionFor(v.length);
  const taps = index.length / SKETCH_BITS;
  const out = new Uint32Array(SKETCH_WORDS);
  // Up to TAPS dimensions, projection b's taps are the components in order: no index to look up.
  const dense = taps === v.length;
  const x = Float32Array.from(v);
  for (let b = 0; b < SKETCH_BITS; b++) {
    let sum = 0;
    const from = b * taps;
    if (dense) for (let t = 0; t < taps; t++) sum += x[t]! * sign[from + t]!;
    else for (let t = from; t < from + taps; t++) sum += x[index[t]!]! * sign[t]!;
    if (sum > 0) out[b >>> 5]! |= 1 << (b & 31);
  }
  return out;
}

/** The sketch as knowledge_vectors.sketch stores it: the 32 words, little-endian, 128 bytes. */
export function sketchBytes(v: ArrayLike<number>): Buffer {
  const words = sketchWords(v);
  const buf = Buffer.alloc(words.length * 4);
  for (let i = 0; i < words.length; i++) buf.writeUInt32LE(words[i]!, i * 4);
  return buf;
}

/** Bits set in a 32-bit word. */
export function popcount32(x: number): number {
  let y = x - ((x >>> 1) & 0x55555555);
  y = (y & 0x33333333) + ((y >>> 2) & 0x33333333);
  return (Math.imul((y + (y >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24) & 0xff;
}
