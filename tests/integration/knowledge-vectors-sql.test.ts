import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb, type DbHandle } from "@/lib/db/client";
import { bitString, fromBytea, hamming, normalize, rerankByCosine, toBytea } from "@/lib/knowledge/vectors";
import { createEmptyDatabase } from "../support/db";
import { fakeVector } from "../support/fake-embeddings";

// The vector storage knowledge search relies on, checked in the database itself: float32 bytes in bytea
// come back bit for bit, and `bit_count(code # $1::bit(n))` ranks codes by the Hamming distance the helpers
// compute. On PGlite by default, on the Postgres server when DATABASE_URL is set (CI), like every test here.

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
    `create table vec_probe (id int primary key, code bit(${DIMS}) not null, vec bytea not null)`,
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
  it("stores float32 bytes in bytea and reads them back exactly", async () => {
    const v = normalize(fakeVector(texts[0] ?? "", DIMS));
    await handle.raw.pool.query("insert into vec_probe values (0, $1::bit(64), $2)", [
      bitString(v),
      toBytea(v),
    ]);
    const { rows } = await handle.raw.pool.query<{ vec: Buffer; code: string; n: number }>(
      "select vec, code::text as code, octet_length(vec) as n from vec_probe where id = 0",
    );
    expect(rows[0]?.n).toBe(DIMS * 4);
    expect([...fromBytea(rows[0]?.vec ?? Buffer.alloc(0))]).toEqual([...v]);
    expect(rows[0]?.code).toBe(bitString(v));
  });

  it("orders by bit_count(code # query) as the Hamming distance of the codes, then reranks by cosine", async () => {
    const vectors = texts.map((t) => normalize(fakeVector(t, DIMS)));
    await handle.raw.pool.query("delete from vec_probe");
    for (const [i, v] of vectors.entries()) {
      await handle.raw.pool.query("insert into vec_probe values ($1, $2::bit(64), $3)", [
        i,
        bitString(v),
        toBytea(v),
      ]);
    }
    const query = normalize(fakeVector("where do guests park, is the garage free", DIMS));
    const { rows } = await handle.raw.pool.query<{ id: number; d: number; vec: Buffer }>(
      "select id, bit_count(code # $1::bit(64))::int as d, vec from vec_probe order by d, id limit 4",
      [bitString(query)],
    );
    for (const r of rows) expect(r.d).toBe(hamming(bitString(query), bitString(vectors[r.id] ?? [])));
    const expected = vectors
      .map((v, id) => ({ id, d: hamming(bitString(query), bitString(v)) }))
      .sort((a, b) => a.d - b.d || a.id - b.id);
    expect(rows.map((r) => r.id)).toEqual(expected.slice(0, 4).map((e) => e.id));
    const best = rerankByCosine(
      query,
      rows.map((r) => ({ id: r.id, vector: r.vec })),
      1,
    );
    expect([0, 5]).toContain(best[0]?.id);
  });
});
