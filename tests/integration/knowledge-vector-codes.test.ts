import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rowsOf } from "@/lib/db/client";
import { claimPages, replacePageChunks, updatePage } from "@/lib/db/queries/knowledge-pages";
import { saveWebsiteSource } from "@/lib/db/queries/knowledge-sources";
import { storeEmbedding } from "@/lib/db/queries/knowledge-vectors";
import { createTenant } from "@/lib/db/queries/tenants";
import { nearestVectors, runEmbedJob } from "@/lib/knowledge/embed";
import { embeddingsClient } from "@/lib/knowledge/embeddings";
import { cosine, normalize, sketchBytes, toBytea } from "@/lib/knowledge/vectors";
import type { JobQueue } from "@/lib/queue";
import { freshDb, type TestDb } from "../support/db";
import { type FakeEmbeddings, startFakeEmbeddings } from "../support/fake-embeddings";
import { mulberry32 } from "../support/seeded-random";

// The vector search of drizzle/0030: the nearest SimHash codes, sorted in the database, then reranked by exact
// cosine. Checked against brute force on generated vectors shaped like a real model's retrieval: 40 topics,
// each chunk at cosine 0.55-0.9 from its topic's direction, a query at 0.75-0.9 from one topic, so its right
// chunks sit at cosine ~0.4-0.8 from it and the others near 0. (Harder cases are measured in bench/README.md:
// where every neighbour is at cosine 0.3-0.4, and the bench's sparse fake vectors.) And the tenant boundary: two tenants hold the very same vectors, and each search sees
// only its own chunks.
// On PGlite by default, on the Postgres server when DATABASE_URL is set.

const DIM = 128;
const PER_TENANT = 1200;
const TOPICS = 40;
const MODEL = "gen-model";

let t: TestDb;
const tenants: string[] = [];
let server: FakeEmbeddings;

const rand = mulberry32(30);
const gauss = () => Math.sqrt(-2 * Math.log(rand() + 1e-12)) * Math.cos(2 * Math.PI * rand());
const around = (center: Float32Array, spread: number) =>
  normalize(Array.from(center, (x) => x + spread * gauss()));

const topics = Array.from({ length: TOPICS }, () => normalize(Array.from({ length: DIM }, gauss)));
// Chunk vectors: a topic plus noise of varying size (a noise of norm r puts it at cosine 1/√(1+r²) from the
// topic), so some neighbours are close and others far.
const vectors = Array.from({ length: PER_TENANT }, (_, i) =>
  around(topics[i % TOPICS]!, 0.045 + 0.022 * (i % 5)),
);

async function seedTenant(slug: string): Promise<{ tenantId: string; chunkIds: string[] }> {
  const tenantId = (await createTenant(t.handle.platform, { slug, name: slug })).id;
  const chunkIds = await t.handle.forTenant(tenantId, async (tx) => {
    const source = await saveWebsiteSource(tx, tenantId, {
      startUrl: "https://example.test/",
      sitemapUrl: null,
      includePatterns: [],
      excludePatterns: [],
      pageCap: 10,
      schedule: "off",
      nextSyncAt: null,
    });
    const [page] = await claimPages(tx, {
      tenantId,
      sourceId: source.id,
      runId: "00000000-0000-4000-8000-0000000000bb",
      urls: [{ url: "https://example.test/all", depth: 0 }],
      max: 1,
    });
    await updatePage(tx, page!.id, { status: "indexed", title: "All", lang: "en" });
    const texts = vectors.map((_, i) => `passage ${i}`);
    await replacePageChunks(
      tx,
      { tenantId, sourceId: source.id, pageId: page!.id },
      texts.map((text, ord) => ({ ord, headingPath: "", text, hash: `h${ord}`, lang: "en", words: text })),
    );
    const rows = await rowsOf<{ id: string; hash: string }>(
      tx,
      sql`select id, hash from knowledge_chunks order by ord`,
    );
    for (const [i, r] of rows.entries()) {
      const v = vectors[i]!;
      await storeEmbedding(tx, {
        id: r.id,
        hash: r.hash,
        bytes: toBytea(v),
        sketch: sketchBytes(v),
        model: MODEL,
        dim: DIM,
      });
    }
    return rows.map((r) => r.id);
  });
  return { tenantId, chunkIds };
}

let seeded: { tenantId: string; chunkIds: string[] }[] = [];

beforeAll(async () => {
  server = await startFakeEmbeddings({ dialect: "ollama", dims: DIM });
  t = await freshDb();
  seeded = [await seedTenant("vec-a"), await seedTenant("vec-b")];
  tenants.push(...seeded.map((s) => s.tenantId));
}, 120_000);

afterAll(async () => {
  await server?.close();
  await t?.close();
});

const queries = Array.from({ length: 30 }, (_, i) =>
  around(topics[(i * 7) % TOPICS]!, 0.05 + 0.01 * (i % 4)),
);

describe(`vector sketches (${process.env.DATABASE_URL ? "Postgres" : "PGlite"})`, () => {
  it("finds at least 90% of the exact 10 nearest vectors (brute-force cosine) over 30 queries", async () => {
    const { tenantId, chunkIds } = seeded[0]!;
    let found = 0;
    for (const q of queries) {
      const exact = vectors
        .map((v, i) => ({ id: chunkIds[i]!, s: cosine(q, v) }))
        .sort((a, b) => b.s - a.s)
        .slice(0, 10)
        .map((e) => e.id);
      const got = (await nearestVectors(t.handle, tenantId, MODEL, q)).slice(0, 10).map((h) => h.chunkId);
      found += exact.filter((id) => got.includes(id)).length;
    }
    const recall = found / (queries.length * 10);
    // The bar: what a search that misses one right chunk in ten still passes; a worse one fails.
    expect(recall).toBeGreaterThanOrEqual(0.9);
  });

  it("returns only the searching tenant's chunks, though both tenants hold the same vectors", async () => {
    const [a, b] = seeded;
    for (const q of queries.slice(0, 5)) {
      const fromA = (await nearestVectors(t.handle, a!.tenantId, MODEL, q)).map((h) => h.chunkId);
      const fromB = (await nearestVectors(t.handle, b!.tenantId, MODEL, q)).map((h) => h.chunkId);
      expect(fromA.length).toBe(40);
      expect(fromB.length).toBe(40);
      expect(fromA.every((id) => a!.chunkIds.includes(id))).toBe(true);
      expect(fromB.every((id) => b!.chunkIds.includes(id))).toBe(true);
    }
  });

  it("answers nothing to a caller that entered no tenant, and nothing of another model or size", async () => {
    const ids = `{${seeded[0]!.chunkIds.slice(0, 10).join(",")}}`;
    const none = await rowsOf(
      t.handle.platform,
      sql`select * from michi_knowledge_vectors_by_id(${MODEL}, ${DIM}, ${ids}::uuid[])`,
    );
    expect(none).toEqual([]);
    // Another tenant's ids read as the first tenant: no chunk, only the (first tenant's) newest seq.
    const crossed = await t.handle.forTenant(seeded[1]!.tenantId, (tx) =>
      rowsOf<{ chunk_id: string | null }>(
        tx,
        sql`select chunk_id from michi_knowledge_vectors_by_id(${MODEL}, ${DIM}, ${ids}::uuid[])`,
      ),
    );
    expect(crossed.map((r) => r.chunk_id)).toEqual([null]);
    const other = await t.handle.forTenant(seeded[0]!.tenantId, (tx) =>
      rowsOf<{ chunk_id: string | null }>(
        tx,
        sql`select chunk_id from michi_knowledge_vectors_by_id('other-model', ${DIM}, ${ids}::uuid[])`,
      ),
    );
    expect(other.map((r) => r.chunk_id)).toEqual([null]);
    expect(
      await nearestVectors(t.handle, seeded[0]!.tenantId, MODEL, normalize(queries[0]!.slice(0, 64))),
    ).toEqual([]);
  });

  it("finds a vector stored after this instance's first search, and never one deleted since", async () => {
    const { tenantId, chunkIds } = seeded[0]!;
    const q = normalize(Array.from({ length: DIM }, gauss));
    const before = await nearestVectors(t.handle, tenantId, MODEL, q);
    const target = chunkIds.find((id) => !before.some((h) => h.chunkId === id))!;
    const [row] = await rowsOf<{ hash: string }>(
      t.handle.platform,
      sql`select hash from knowledge_chunks where id = ${target}`,
    );
    // Deleted, then stored again with the query's own direction: a new row, so a new seq.
    await t.handle.forTenant(tenantId, (tx) =>
      tx.execute(sql`delete from knowledge_vectors where chunk_id = ${target}`),
    );
    expect((await nearestVectors(t.handle, tenantId, MODEL, q)).map((h) => h.chunkId)).not.toContain(target);
    await t.handle.forTenant(tenantId, (tx) =>
      storeEmbedding(tx, {
        id: target,
        hash: row!.hash,
        bytes: toBytea(q),
        sketch: sketchBytes(q),
        model: MODEL,
        dim: DIM,
      }),
    );
    expect((await nearestVectors(t.handle, tenantId, MODEL, q))[0]?.chunkId).toBe(target);
    // Replaced in place by a vector pointing away: an update, which takes a new seq too.
    const away = Float32Array.from(q, (x) => -x);
    await t.handle.forTenant(tenantId, (tx) =>
      storeEmbedding(tx, {
        id: target,
        hash: row!.hash,
        bytes: toBytea(away),
        sketch: sketchBytes(away),
        model: MODEL,
        dim: DIM,
      }),
    );
    expect((await nearestVectors(t.handle, tenantId, MODEL, q)).map((h) => h.chunkId)).not.toContain(target);
    // The vector restored as it was seeded, for the other tests.
    const seededVector = vectors[chunkIds.indexOf(target)]!;
    await t.handle.forTenant(tenantId, (tx) =>
      storeEmbedding(tx, {
        id: target,
        hash: row!.hash,
        bytes: toBytea(seededVector),
        sketch: sketchBytes(seededVector),
        model: MODEL,
        dim: DIM,
      }),
    );
  });

  it("hides the chunks of a page that is skipped for now, and finds them again when it is indexed again", async () => {
    const { tenantId } = seeded[0]!;
    const q = queries[3]!;
    const before = (await nearestVectors(t.handle, tenantId, MODEL, q)).map((h) => h.chunkId);
    expect(before).toHaveLength(40);
    const setStatus = (status: string) =>
      t.handle.forTenant(tenantId, (tx) => tx.execute(sql`update knowledge_pages set status = ${status}`));
    await setStatus("skipped");
    // Two searches while skipped: the second would find nothing to read if the first had dropped them.
    expect(await nearestVectors(t.handle, tenantId, MODEL, q)).toEqual([]);
    expect(await nearestVectors(t.handle, tenantId, MODEL, q)).toEqual([]);
    // Indexed again with the same chunks and vectors (nothing new stored, so no newer seq).
    await setStatus("indexed");
    expect((await nearestVectors(t.handle, tenantId, MODEL, q)).map((h) => h.chunkId)).toEqual(before);
  });

  it.skipIf(!process.env.DATABASE_URL)(
    "makes a business's vector writers take turns, so a later commit never has a smaller seq",
    async () => {
      const { tenantId, chunkIds } = seeded[1]!;
      let open!: () => void;
      const gate = new Promise<void>((resolve) => {
        open = resolve;
      });
      let firstStored!: () => void;
      const stored = new Promise<void>((resolve) => {
        firstStored = resolve;
      });
      const first = t.handle.forTenant(tenantId, async (tx) => {
        await tx.execute(sql`update knowledge_vectors set dim = dim where chunk_id = ${chunkIds[0]!}`);
        firstStored();
        await gate;
      });
      await stored;
      const second = t.handle.forTenant(tenantId, (tx) =>
        tx.execute(sql`update knowledge_vectors set dim = dim where chunk_id = ${chunkIds[1]!}`),
      );
      // The second writer waits on the business's advisory lock while the first is open.
      for (;;) {
        const waiting = await rowsOf<{ n: number }>(
          t.handle.platform,
          sql`select count(*)::int as n from pg_locks where locktype = 'advisory' and not granted`,
        );
        if ((waiting[0]?.n ?? 0) > 0) break;
        await new Promise((r) => setTimeout(r, 10));
      }
      open();
      await Promise.all([first, second]);
      const seqs = await rowsOf<{ chunk_id: string; seq: string }>(
        t.handle.platform,
        sql`select chunk_id, seq::text as seq from knowledge_vectors where chunk_id in (${chunkIds[0]!}, ${chunkIds[1]!})`,
      );
      const seqOf = (id: string) => Number(seqs.find((r) => r.chunk_id === id)!.seq);
      expect(seqOf(chunkIds[1]!)).toBeGreaterThan(seqOf(chunkIds[0]!));
    },
  );

  it("sketches vectors stored without a sketch from their own bytes, with no embedding request", async () => {
    const { tenantId, chunkIds } = seeded[1]!;
    await t.handle.forTenant(tenantId, (tx) =>
      tx.execute(
        sql`update knowledge_vectors set sketch = null where chunk_id = any(${sql.param(chunkIds.slice(0, 50))}::uuid[])`,
      ),
    );
    const client = embeddingsClient({
      model: MODEL,
      dialect: "ollama",
      baseURL: server.url,
      apiKey: null,
      preset: "generic",
      dimensions: null,
      batchSize: 16,
      timeoutMs: 5000,
      queryPrefix: "",
      documentPrefix: "",
    });
    const queue = { sendIn: async () => "job", send: async () => "job", stop: async () => {} } as JobQueue;
    await runEmbedJob(t.handle, queue, client, { id: "j", data: { tenantId }, retryCount: 0, retryLimit: 1 });
    expect(server.requests).toHaveLength(0);
    const coded = await rowsOf<{ sketch: string | null; chunk_id: string }>(
      t.handle.platform,
      sql`select chunk_id, encode(sketch, 'hex') as sketch from knowledge_vectors where chunk_id = any(${sql.param(chunkIds.slice(0, 50))}::uuid[])`,
    );
    expect(coded).toHaveLength(50);
    for (const r of coded)
      expect(r.sketch).toBe(sketchBytes(vectors[chunkIds.indexOf(r.chunk_id)]!).toString("hex"));
  });
});
