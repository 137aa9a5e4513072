import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb, type DbHandle } from "@/lib/db/client";
import { SketchSet } from "@/lib/knowledge/sketch-cache";
import { fromBytea, normalize, popcount32, sketchBytes, sketchWords, toBytea } from "@/lib/knowledge/vectors";
import { createEmptyDatabase } from "../support/db";
import { fakeVector } from "../support/fake-embeddings";

// The vector storage knowledge search relies on, checked in the database itself: float32 bytes in bytea
// and the 128-byte sketches in bytea come back bit for bit, and sketches read back from the database rank
// as the ones computed here do. On PGlite by default, on the Postgres server when DATABASE_URL is set (CI), like every test here.

const DIMS = 64;
let handle: DbHandle;
let drop: (() => Promise<void>) | null = null;

beforeAll(async () => {
  if (process.env.DATABASE_URL) {
    const created = await createEmptyDatabase("michi_vec");
    drop = created.drop;
    handle = await createDb({ url: created.url, poolMax: 2 });
  } else {
    handle = await createDb({ dataDir: null });
  }
  await handle.raw.pool.query(
    "create table vec_probe (id int primary key, sketch bytea not null, vec bytea not null)",
  );
});

afterAll(async () => {
  await handle?.close();
  await drop?.();
});

const texts = [
  "guests park in the garage under the hotel",
  "breakfast is served from seven to ten",
  "the garage has two chargers for electric cars",
  "pets are welcome in every room",
  "late check out until noon on sundays",
  "parking in the garage costs nothing for guests",
];

describe(`vectors in the database (${process.env.DATABASE_URL ? "Postgres" : "PGlite"})`, () => {
  it("stores float32 bytes and the sketch in bytea and reads them back exactly", async () => {
    const v = normalize(fakeVector(texts[0] ?? "", DIMS));
    await handle.raw.pool.query("insert into vec_probe values (0, $1, $2)", [sketchBytes(v), toBytea(v)]);
    const { rows } = await handle.raw.pool.query<{ vec: Buffer; sketch: Buffer; n: number }>(
      "select vec, sketch, octet_length(vec) as n from vec_probe where id = 0",
    );
    expect(rows[0]?.n).toBe(DIMS * 4);
    expect([...fromBytea(rows[0]?.vec ?? Buffer.alloc(0))]).toEqual([...v]);
    expect(rows[0]?.sketch.equals(sketchBytes(v))).toBe(true);
  });

  it("shortlists by the sketches read back as by the ones computed here, then reranks by cosine", async () => {
    const vectors = texts.map((t) => normalize(fakeVector(t, DIMS)));
    await handle.raw.pool.query("delete from vec_probe");
    for (const [i, v] of vectors.entries())
      await handle.raw.pool.query("insert into vec_probe values ($1, $2, $3)", [
        i,
        sketchBytes(v),
        toBytea(v),
      ]);
    const { rows } = await handle.raw.pool.query<{ id: number; sketch: Buffer; vec: Buffer }>(
      "select id, sketch, vec from vec_probe",
    );
    const set = new SketchSet(DIMS);
    for (const r of rows) set.put(String(r.id), r.sketch, r.vec);
    const query = normalize(fakeVector("where do guests park, is the garage free", DIMS));
    const q = sketchWords(query);
    const distance = (v: Float32Array) => {
      const w = sketchWords(v);
      let d = 0;
      for (let i = 0; i < w.length; i++) d += popcount32(w[i]! ^ q[i]!);
      return d;
    };
    const shortlist = set.nearest(q, 4).map(Number);
    const expected = vectors
      .map((v, id) => ({ id, d: distance(v) }))
      .sort((a, b) => a.d - b.d || a.id - b.id)
      .slice(0, 4)
      .map((e) => e.id);
    expect(shortlist).toEqual(expected);
    const best = set.rerank(query, shortlist.map(String));
    expect(["0", "5"]).toContain(best[0]?.id);
  });
});
