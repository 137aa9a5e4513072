import { afterEach, describe, expect, it } from "vitest";
import { EnvError, parseEnv } from "@/lib/env";
import { isAppError } from "@/lib/errors";
import {
  type EmbeddingsConfig,
  embeddingModelId,
  embeddingsClient,
  embeddingsConfig,
  embedTexts,
} from "@/lib/knowledge/embeddings";
import { SketchSet } from "@/lib/knowledge/sketch-cache";
import { cosine, sketchBytes, toBytea } from "@/lib/knowledge/vectors";
import { type FakeEmbeddings, fakeVector, startFakeEmbeddings } from "../support/fake-embeddings";

const dev = () => ({ secretKey: Buffer.alloc(32, 7).toString("base64"), authSecret: "x".repeat(40) });

let servers: FakeEmbeddings[] = [];
afterEach(async () => {
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
});

async function fake(opts: Parameters<typeof startFakeEmbeddings>[0]): Promise<FakeEmbeddings> {
  const s = await startFakeEmbeddings(opts);
  servers.push(s);
  return s;
}

function config(
  over: Partial<EmbeddingsConfig> & Pick<EmbeddingsConfig, "baseURL" | "dialect">,
): EmbeddingsConfig {
  return {
    model: "text-embedding-3-small",
    apiKey: null,
    preset: "generic",
    dimensions: null,
    batchSize: 32,
    timeoutMs: 5000,
    queryPrefix: "",
    documentPrefix: "",
    ...over,
  };
}

async function failure(p: Promise<unknown>) {
  try {
    await p;
  } catch (e) {
    if (!isAppError(e)) throw e;
    return {
      code: e.code,
      message: e.message,
      retryable: e.details?.retryable,
      retryAfterSec: e.details?.retryAfterSec,
    };
  }
  throw new Error("expected a failure");
}

describe("embeddings configuration", () => {
  it("is off without MICHI_EMBEDDINGS and served by the default provider otherwise", () => {
    expect(embeddingsConfig(parseEnv({}, dev))).toBeNull();
    const c = embeddingsConfig(
      parseEnv(
        {
          OPENAI_API_KEY: "sk-1",
          MICHI_EMBEDDINGS: "text-embedding-3-small",
          MICHI_EMBEDDINGS_DIMENSIONS: "256",
        },
        dev,
      ),
    );
    expect(c).toMatchObject({
      baseURL: "https://api.openai.com/v1",
      apiKey: "sk-1",
      preset: "openai",
      dimensions: 256,
      dialect: "openai",
    });
    expect(c && embeddingModelId(c)).toBe("text-embedding-3-small@256");
  });

  it("uses a named provider's server, and takes Ollama's /v1 base URL as its server root for /api/embed", () => {
    const c = embeddingsConfig(
      parseEnv(
        {
          MICHI_PROVIDERS: "local",
          MICHI_PROVIDER_LOCAL_BASE_URL: "http://127.0.0.1:11434/v1",
          MICHI_PROVIDER_LOCAL_PRESET: "ollama",
          MICHI_PROVIDER_LOCAL_MODELS: "qwen2.5:7b",
          MICHI_EMBEDDINGS: "nomic-embed-text",
          MICHI_EMBEDDINGS_PROVIDER: "local",
          MICHI_EMBEDDINGS_DIALECT: "ollama",
          MICHI_EMBEDDINGS_QUERY_PREFIX: "search_query: ",
        },
        dev,
      ),
    );
    expect(c).toMatchObject({
      baseURL: "http://127.0.0.1:11434",
      dialect: "ollama",
      preset: "ollama",
      queryPrefix: "search_query: ",
    });
  });

  it("refuses a provider that does not exist or a default provider that is not configured", () => {
    const problems = (source: Record<string, string>) => {
      try {
        parseEnv(source, dev);
        return [];
      } catch (e) {
        return e instanceof EnvError ? e.problems : [String(e)];
      }
    };
    expect(problems({ MICHI_EMBEDDINGS: "m" }).join()).toMatch(/default provider needs OPENAI_BASE_URL/);
    expect(
      problems({ OPENAI_API_KEY: "k", MICHI_EMBEDDINGS: "m", MICHI_EMBEDDINGS_PROVIDER: "nope" }).join(),
    ).toMatch(/"nope" is neither "default" nor a name in MICHI_PROVIDERS/);
  });
});

describe("the OpenAI dialect", () => {
  it("posts batches to /embeddings with the key, keeps input order and answers unit vectors", async () => {
    const s = await fake({ dialect: "openai", apiKey: "sk-test", dims: 32 });
    const client = embeddingsClient(
      config({ baseURL: `${s.url}/v1`, dialect: "openai", apiKey: "sk-test", batchSize: 4 }),
    );
    const texts = Array.from({ length: 10 }, (_, i) => `text number ${i} about parking ${i % 3}`);
    s.faults.push({ kind: "shuffle" });
    const r = await embedTexts(client, texts, { kind: "document" });
    expect(s.requests.map((q) => (q.body.input as string[]).length)).toEqual([4, 4, 2]);
    expect(s.requests[0]?.path).toBe("/v1/embeddings");
    expect(s.requests[0]?.headers.authorization).toBe("Bearer sk-test");
    expect(s.requests[0]?.body).toEqual({ model: "text-embedding-3-small", input: texts.slice(0, 4) });
    expect(r.dimensions).toBe(32);
    expect(r.vectors).toHaveLength(10);
    texts.forEach((t, i) => {
      expect(cosine(r.vectors[i] ?? [], fakeVector(t, 32))).toBeCloseTo(1, 5);
      expect(Math.hypot(...(r.vectors[i] ?? []))).toBeCloseTo(1, 5);
    });
    expect(r.tokens).toBe(texts.reduce((n, t) => n + t.split(" ").length, 0));
  });

  it("asks for the configured size (Mistral by its own parameter name) and refuses a different answer", async () => {
    const s = await fake({ dialect: "openai", dims: 16 });
    const sized = embeddingsClient(config({ baseURL: `${s.url}/v1`, dialect: "openai", dimensions: 8 }));
    expect((await embedTexts(sized, ["a b"], { kind: "query" })).dimensions).toBe(8);
    expect(s.requests[0]?.body.dimensions).toBe(8);
    const mistral = embeddingsClient(
      config({ baseURL: `${s.url}/v1`, dialect: "openai", dimensions: 8, preset: "mistral" }),
    );
    const f = await failure(embedTexts(mistral, ["a b"], { kind: "query" }));
    expect(s.requests[1]?.body).toMatchObject({ output_dimension: 8 });
    expect(s.requests[1]?.body.dimensions).toBeUndefined();
    // This fake ignores output_dimension, so its 16 dimensions are refused rather than stored beside 8.
    expect(f).toMatchObject({ code: "model_unavailable", retryable: false });
    expect(f.message).toMatch(/16 dimensions; 8 were asked for/);
  });

  it("maps refusals to errors that say whether a retry can help", async () => {
    const s = await fake({ dialect: "openai", apiKey: "right" });
    const wrongKey = embeddingsClient(config({ baseURL: `${s.url}/v1`, dialect: "openai", apiKey: "wrong" }));
    const auth = await failure(embedTexts(wrongKey, ["x"], { kind: "document" }));
    expect(auth).toMatchObject({ code: "model_unavailable", retryable: false });
    expect(auth.message).toMatch(/\(401\): Incorrect API key provided/);

    const client = embeddingsClient(config({ baseURL: `${s.url}/v1`, dialect: "openai", apiKey: "right" }));
    s.faults.push({ kind: "status", status: 429, retryAfter: 7 });
    expect(await failure(embedTexts(client, ["x"], { kind: "document" }))).toMatchObject({
      code: "rate_limited",
      retryable: true,
      retryAfterSec: 7,
    });
    s.faults.push({ kind: "status", status: 503 });
    expect(await failure(embedTexts(client, ["x"], { kind: "document" }))).toMatchObject({
      code: "model_unavailable",
      retryable: true,
    });
    s.faults.push({ kind: "wrong-count" });
    const count = await failure(embedTexts(client, ["x", "y"], { kind: "document" }));
    expect(count).toMatchObject({ retryable: false });
    expect(count.message).toMatch(/1 vectors for 2 texts/);
    expect(await failure(embedTexts(client, ["ok", " "], { kind: "document" }))).toMatchObject({
      code: "invalid_input",
    });
  });

  it("ends a request the server never answers, and one whose connection drops, as retryable", async () => {
    const s = await fake({ dialect: "openai" });
    const client = embeddingsClient(config({ baseURL: `${s.url}/v1`, dialect: "openai", timeoutMs: 1000 }));
    s.faults.push({ kind: "stall" });
    const stalled = await failure(embedTexts(client, ["x"], { kind: "document" }));
    expect(stalled).toMatchObject({ code: "model_unavailable", retryable: true });
    expect(stalled.message).toMatch(/did not answer within 1000 ms/);
    s.faults.push({ kind: "hangup" });
    expect(await failure(embedTexts(client, ["x"], { kind: "document" }))).toMatchObject({ retryable: true });
    const nobody = embeddingsClient(config({ baseURL: "http://127.0.0.1:9/v1", dialect: "openai" }));
    const down = await failure(embedTexts(nobody, ["x"], { kind: "document" }));
    expect(down.message).toMatch(/could not be reached/);
  });
});

describe("Ollama's own dialect", () => {
  it("posts to /api/embed with the query prefix and reads `embeddings`", async () => {
    const s = await fake({ dialect: "ollama", models: ["nomic-embed-text"], dims: 24 });
    const client = embeddingsClient(
      config({
        baseURL: s.url,
        dialect: "ollama",
        model: "nomic-embed-text",
        queryPrefix: "search_query: ",
        documentPrefix: "search_document: ",
      }),
    );
    const q = await embedTexts(client, ["where do I park"], { kind: "query" });
    expect(s.requests[0]).toMatchObject({
      path: "/api/embed",
      body: { model: "nomic-embed-text", input: ["search_query: where do I park"] },
    });
    expect(q.dimensions).toBe(24);
    expect(q.tokens).toBe(5);
    await embedTexts(client, ["parking is under the hotel"], { kind: "document" });
    expect(s.requests[1]?.body.input).toEqual(["search_document: parking is under the hotel"]);
  });

  it("says which model is missing, as Ollama words it", async () => {
    const s = await fake({ dialect: "ollama", models: ["nomic-embed-text"] });
    const client = embeddingsClient(
      config({ baseURL: s.url, dialect: "ollama", model: "mxbai-embed-large" }),
    );
    const f = await failure(embedTexts(client, ["x"], { kind: "document" }));
    expect(f).toMatchObject({ code: "model_unavailable", retryable: false });
    expect(f.message).toContain('(404): model "mxbai-embed-large" not found, try pulling it first');
  });

  it("finds the passage that shares the query's words through the vectors, end to end", async () => {
    const s = await fake({ dialect: "ollama", dims: 256 });
    const client = embeddingsClient(config({ baseURL: s.url, dialect: "ollama", model: "any" }));
    const passages = [
      "Breakfast is served from seven to ten",
      "Guests park in the garage under the hotel",
      "Pets are welcome in every room",
    ];
    const docs = await embedTexts(client, passages, { kind: "document" });
    const query = await embedTexts(client, ["where can guests park"], { kind: "query" });
    // Ranked as the vector search ranks: by cosine on the vectors an instance keeps in memory.
    const set = new SketchSet(256);
    for (const [i, v] of docs.vectors.entries()) set.put(String(i), sketchBytes(v), toBytea(v));
    const ranked = set.rerank(query.vectors[0] ?? [], ["0", "1", "2"]);
    expect(ranked[0]?.id).toBe("1");
  });
});
