import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rowsOf } from "@/lib/db/client";
import { claimPages, replacePageChunks, updatePage } from "@/lib/db/queries/knowledge-pages";
import { saveWebsiteSource } from "@/lib/db/queries/knowledge-sources";
import { storeEmbedding } from "@/lib/db/queries/knowledge-vectors";
import { createTenant } from "@/lib/db/queries/tenants";
import { nearestVectors, runEmbedJob } from "@/lib/knowledge/embed";
import { embeddingsClient } from "@/lib/knowledge/embeddings";
import { cosine, normalize, simhash, toBytea } from "@/lib/knowledge/vectors";
import type { JobQueue } from "@/lib/queue";
import { freshDb, type TestDb } from "../support/db";
import { type FakeEmbeddings, startFakeEmbeddings } from "../support/fake-embeddings";

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

/** A seeded generator, so the vectors (and the recall they give) are the same on every run. */
function mulberry32(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let r = Math.imul(s ^ (s >>> 15), 1 | s);
    r = (r + Math.imul(r ^ (r >>> 7), 61 | r)) ^ r;
    return ((r ^ (r >>> 14)) >>> 0) / 4294967296;
  };
}
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
        code: simhash(v),
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

describe(`vector codes (${process.env.DATABASE_URL ? "Postgres" : "PGlite"})`, () => {
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
    const code = simhash(queries[0]!);
    const none = await rowsOf(
      t.handle.platform,
      sql`select * from michi_knowledge_vector_hits(${MODEL}, ${DIM}, ${code}::varbit, 10)`,
    );
    expect(none).toEqual([]);
    const other = await t.handle.forTenant(seeded[0]!.tenantId, (tx) =>
      rowsOf(tx, sql`select * from michi_knowledge_vector_hits('other-model', ${DIM}, ${code}::varbit, 10)`),
    );
    expect(other).toEqual([]);
    expect(
      await nearestVectors(t.handle, seeded[0]!.tenantId, MODEL, normalize(queries[0]!.slice(0, 64))),
    ).toEqual([]);
  });

  it("codes vectors carried over without a code from their own bytes, with no embedding request", async () => {
    const { tenantId, chunkIds } = seeded[1]!;
    await t.handle.forTenant(tenantId, (tx) =>
      tx.execute(
        sql`update knowledge_vectors set code = null where chunk_id = any(${sql.param(chunkIds.slice(0, 50))}::uuid[])`,
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
    const coded = await rowsOf<{ code: string | null; chunk_id: string }>(
      t.handle.platform,
      sql`select chunk_id, code::text as code from knowledge_vectors where chunk_id = any(${sql.param(chunkIds.slice(0, 50))}::uuid[])`,
    );
    expect(coded).toHaveLength(50);
    for (const r of coded) expect(r.code).toBe(simhash(vectors[chunkIds.indexOf(r.chunk_id)]!));
  });
});
