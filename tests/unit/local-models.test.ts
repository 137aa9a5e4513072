import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { detectLocalModelServers, type LocalCandidate } from "@/lib/chat/local-models";
import { modelStatus } from "@/lib/chat/model";
import { reloadEnv } from "@/lib/env";
import { adoptLocalModelServer } from "@/lib/setup/local-model";

// A newcomer's machine with a local model server reaches a first answer without editing a file. The fake
// servers answer GET /v1/models as the real ones do:
// - Ollama's OpenAI compatibility layer (ollama/ollama openai/openai.go, ListCompletion): object "list",
//   entries with id "<name>:<tag>", object "model", created, owned_by "library".
// - llama.cpp's llama-server (tools/server README, GET /v1/models): the loaded GGUF as one entry, owned_by
//   "llamacpp", with a "meta" object beside it.

function serve(handler: (path: string) => { status: number; body: unknown }): Promise<Server> {
  const server = createServer((req, res) => {
    const r = handler(req.url ?? "/");
    res.writeHead(r.status, { "content-type": "application/json" }).end(JSON.stringify(r.body));
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}
const originOf = (s: Server) => `http://127.0.0.1:${(s.address() as AddressInfo).port}`;

let ollama: Server;
let llama: Server;
let notModels: Server;
beforeAll(async () => {
  ollama = await serve((p) =>
    p === "/v1/models"
      ? {
          status: 200,
          body: {
            object: "list",
            data: [
              { id: "llama3.2:latest", object: "model", created: 1733000000, owned_by: "library" },
              { id: "nomic-embed-text:latest", object: "model", created: 1733000000, owned_by: "library" },
              { id: "qwen2.5:7b", object: "model", created: 1733000000, owned_by: "library" },
            ],
          },
        }
      : { status: 404, body: { error: "not found" } },
  );
  llama = await serve(() => ({
    status: 200,
    body: {
      object: "list",
      data: [
        {
          id: "Qwen2.5-7B-Instruct-Q4_K_M.gguf",
          object: "model",
          created: 1733000000,
          owned_by: "llamacpp",
          meta: { n_ctx_train: 32768 },
        },
      ],
    },
  }));
  notModels = await serve(() => ({ status: 200, body: "<html>a web app</html>" }));
});
afterAll(() => {
  for (const s of [ollama, llama, notModels]) s.close();
});

// A port nothing listens on: a server bound and closed again.
async function deadOrigin(): Promise<string> {
  const s = await serve(() => ({ status: 200, body: {} }));
  const origin = originOf(s);
  await new Promise((r) => s.close(r));
  return origin;
}

describe("finding a local model server", () => {
  it("lists the servers that answer with their chat models, and skips the rest", async () => {
    const candidates: LocalCandidate[] = [
      { preset: "ollama", name: "Ollama", origin: originOf(ollama) },
      { preset: "lmstudio", name: "LM Studio", origin: await deadOrigin() },
      { preset: "llama-server", name: "llama.cpp server", origin: originOf(llama) },
      { preset: "generic", name: "Something else", origin: originOf(notModels) },
    ];
    const found = await detectLocalModelServers(candidates, 1000);
    expect(found.map((f) => [f.preset, f.baseURL, f.models])).toEqual([
      ["ollama", `${originOf(ollama)}/v1`, ["llama3.2:latest", "qwen2.5:7b"]],
      ["llama-server", `${originOf(llama)}/v1`, ["Qwen2.5-7B-Instruct-Q4_K_M.gguf"]],
    ]);
  });
});

describe("using it from the Models page", () => {
  const saved = { ...process.env };
  afterEach(() => {
    process.env = { ...saved };
    reloadEnv();
  });

  it("writes .env.local, keeps the file's other lines, and makes chat available at once", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "michi-local-"));
    const envFile = path.join(dir, ".env.local");
    writeFileSync(envFile, "MICHI_ADMIN_EMAIL=me@example.com\nMICHI_MODELS=\n");
    for (const k of ["OPENAI_BASE_URL", "OPENAI_API_KEY", "OPENAI_PRESET", "MICHI_MODELS", "MICHI_PROVIDERS"])
      delete process.env[k];
    process.env.MICHI_DATA_DIR = dir;
    reloadEnv();
    expect(modelStatus().configured).toBe(false);

    const candidates: LocalCandidate[] = [{ preset: "ollama", name: "Ollama", origin: originOf(ollama) }];
    const ctx = { user: { id: "u1", isOperator: true }, db: {} } as Parameters<
      typeof adoptLocalModelServer
    >[0];
    const used = await adoptLocalModelServer(
      ctx,
      { preset: "ollama" },
      {
        detect: () => detectLocalModelServers(candidates, 1000),
        envFile,
      },
    );
    expect(used.name).toBe("Ollama");
    expect(modelStatus()).toMatchObject({ configured: true, defaultModel: "llama3.2:latest" });
    const text = readFileSync(envFile, "utf8");
    expect(text).toContain("MICHI_ADMIN_EMAIL=me@example.com");
    expect(text).toContain(`OPENAI_BASE_URL=${originOf(ollama)}/v1`);
    expect(text).toContain("MICHI_MODELS=llama3.2:latest,qwen2.5:7b");
    expect(text.match(/^MICHI_MODELS=/gm)).toHaveLength(1);

    // Once a model is configured, the offer is gone.
    await expect(
      adoptLocalModelServer(ctx, { preset: "ollama" }, { detect: async () => [], envFile }),
    ).rejects.toMatchObject({ code: "conflict" });
  });

  it("is the operator's alone: a business owner is refused before anything is probed or written", async () => {
    const owner = { user: { id: "u2", isOperator: false }, db: {} } as Parameters<
      typeof adoptLocalModelServer
    >[0];
    let probed = false;
    await expect(
      adoptLocalModelServer(
        owner,
        { preset: "ollama" },
        {
          detect: async () => {
            probed = true;
            return [];
          },
          envFile: "/nonexistent/x",
        },
      ),
    ).rejects.toMatchObject({ code: "forbidden" });
    expect(probed).toBe(false);
  });

  it("refuses a server that no longer answers, in words", async () => {
    for (const k of ["OPENAI_BASE_URL", "OPENAI_API_KEY", "MICHI_MODELS", "MICHI_PROVIDERS"])
      delete process.env[k];
    process.env.MICHI_DATA_DIR = mkdtempSync(path.join(tmpdir(), "michi-local-"));
    reloadEnv();
    const ctx = { user: { id: "u1", isOperator: true }, db: {} } as Parameters<
      typeof adoptLocalModelServer
    >[0];
    await expect(
      adoptLocalModelServer(ctx, { preset: "ollama" }, { detect: async () => [], envFile: "/nonexistent/x" }),
    ).rejects.toMatchObject({ code: "not_found", message: expect.stringMatching(/no longer answers/) });
  });
});
