import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rowsOf } from "@/lib/db/client";
import { claimPages, replacePageChunks, updatePage } from "@/lib/db/queries/knowledge-pages";
import { saveWebsiteSource } from "@/lib/db/queries/knowledge-sources";
import { createTenant } from "@/lib/db/queries/tenants";
import { runEmbedJob, vectorHits } from "@/lib/knowledge/embed";
import { type EmbeddingsConfig, embeddingsClient } from "@/lib/knowledge/embeddings";
import { searchKnowledge } from "@/lib/knowledge/search";
import type { JobQueue } from "@/lib/queue";
import { freshDb, type TestDb } from "../support/db";
import { type FakeEmbeddings, startFakeEmbeddings } from "../support/fake-embeddings";

// Vectors beside full text: the embed job stores each chunk's vector with the model that made it, search fuses
// vector hits with full-text hits, and a changed model (another size) is never compared with the old vectors:
// search answers from full text alone until the background job has re-embedded.

let t: TestDb;
let tenantId: string;
let server: FakeEmbeddings;
const sent: string[] = [];
const queue = {
  sendIn: async (_tx: unknown, name: string) => {
    sent.push(name);
    return "job";
  },
  send: async () => "job",
  stop: async () => {},
} as unknown as JobQueue;

const config = (model: string, dimensions: number | null): EmbeddingsConfig => ({
  model,
  dialect: "ollama",
  baseURL: server.url,
  apiKey: null,
  preset: "generic",
  dimensions,
  batchSize: 16,
  timeoutMs: 5000,
  queryPrefix: "",
  documentPrefix: "",
});

const texts = [
  "Guests park in the garage under the hotel, free of charge.",
  "Breakfast is served from seven to ten in the garden room.",
  "Pets are welcome in every room for a small fee.",
];

beforeAll(async () => {
  server = await startFakeEmbeddings({ dialect: "ollama", dims: 64 });
  t = await freshDb();
  tenantId = (await createTenant(t.handle.platform, { slug: "kn-vec", name: "Hotel" })).id;
  await t.handle.forTenant(tenantId, async (tx) => {
    const source = await saveWebsiteSource(tx, tenantId, {
      startUrl: "https://hotel.example/",
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
      runId: "00000000-0000-4000-8000-0000000000aa",
      urls: [{ url: "https://hotel.example/faq", depth: 0 }],
      max: 1,
    });
    await updatePage(tx, page!.id, { status: "indexed", title: "FAQ", lang: "en" });
    await replacePageChunks(
      tx,
      { tenantId, sourceId: source.id, pageId: page!.id },
      texts.map((text, ord) => ({ ord, headingPath: "FAQ", text, hash: `v${ord}`, lang: "en", words: text })),
    );
  });
}, 60_000);

afterAll(async () => {
  await server?.close();
  await t?.close();
});

const job = { id: "j", data: { tenantId: "" }, retryCount: 0, retryLimit: 1 };

describe("vector search", () => {
  it("embeds every chunk with its model and dimension, and fuses vector hits with full text", async () => {
    const client = embeddingsClient(config("nomic-embed-text", null));
    await runEmbedJob(t.handle, queue, client, { ...job, data: { tenantId } });
    const rows = await rowsOf<{ model: string; dim: number; n: number }>(
      t.handle.platform,
      sql`select model, dim, count(*)::int as n from knowledge_vectors group by model, dim`,
    );
    expect(rows).toEqual([{ model: "nomic-embed-text", dim: 64, n: texts.length }]);
    const vec = await vectorHits(t.handle, client, tenantId, "where do guests park the car");
    expect(vec[0]?.text).toContain("garage");
    const fused = await searchKnowledge(t.handle, tenantId, "where do guests park the car", {
      vectorHits: (d, id, q) => vectorHits(d, client, id, q),
    });
    expect(fused.passages[0]?.text).toContain("garage");
    expect(fused.passages[0]?.ranks.vector).toBe(1);
  });

  it("a changed model is never compared with old vectors: full text answers until re-embedded", async () => {
    const next = embeddingsClient(config("nomic-embed-text", 32));
    expect(await vectorHits(t.handle, next, tenantId, "where do guests park")).toEqual([]);
    const meanwhile = await searchKnowledge(t.handle, tenantId, "where do guests park", {
      vectorHits: (d, id, q) => vectorHits(d, next, id, q),
    });
    expect(meanwhile.passages[0]?.text).toContain("garage");
    expect(meanwhile.passages[0]?.ranks).toEqual({ text: 1 });
    await runEmbedJob(t.handle, queue, next, { ...job, data: { tenantId } });
    const again = await vectorHits(t.handle, next, tenantId, "where do guests park");
    expect(again[0]?.text).toContain("garage");
    const dims = await rowsOf<{ d: number }>(
      t.handle.platform,
      sql`select distinct dim as d from knowledge_vectors`,
    );
    expect(dims).toEqual([{ d: 32 }]);
  });
});
