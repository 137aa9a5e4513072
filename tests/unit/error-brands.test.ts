import { readFileSync } from "node:fs";
import path from "node:path";
import vm from "node:vm";
import { transformSync } from "esbuild";
import type { Dispatcher } from "undici";
import { describe, expect, it, vi } from "vitest";
import type { ModelClient } from "@/lib/chat/model";
import { streamCompletion } from "@/lib/chat/model-call";
import { AppError, errorResponse, isAppError, isToolWorldError, ToolWorldError } from "@/lib/errors";
import { createLogger } from "@/lib/log";
import { definePack, type ToolPack } from "@/lib/tools/contract";
import { runToolCall } from "@/lib/tools/runtime";

// The production build may load src/lib/errors.ts more than once (one copy per bundle): an error thrown by a
// pack in one copy then reaches the wrapper of another. These tests make such second copies for real, a
// fresh module graph (vi.resetModules) and another realm (node:vm running the compiled module), and check
// that the errors they throw are still told apart from programmer errors.

type ErrorsModule = typeof import("@/lib/errors");

async function secondCopy(): Promise<ErrorsModule> {
  vi.resetModules();
  const copy = await import("@/lib/errors");
  vi.resetModules();
  return copy;
}

/** src/lib/errors.ts compiled and evaluated in a new vm context: other globals, other Error, other classes. */
function otherRealm(): ErrorsModule {
  const source = readFileSync(path.resolve(import.meta.dirname, "../../src/lib/errors.ts"), "utf8");
  const { code } = transformSync(source, { loader: "ts", format: "cjs", target: "node20" });
  const module = { exports: {} as ErrorsModule };
  // The module's only import is the "server-only" marker, empty outside a client bundle.
  const require = (id: string) => {
    if (id === "server-only") return {};
    throw new Error(`unexpected import ${id}`);
  };
  vm.runInNewContext(code, { module, exports: module.exports, require, Response, Headers });
  return module.exports;
}

function throwingPack(err: () => unknown): ToolPack {
  return definePack({
    id: "probe",
    label: "Probing",
    definition: {
      type: "function",
      function: {
        name: "probe",
        description: "A test pack.",
        parameters: { type: "object", properties: {} },
      },
    },
    configFields: [],
    async run() {
      throw err();
    },
  });
}

async function runThrowing(err: () => unknown) {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger({ write: (s: string) => void lines.push(JSON.parse(s)) }, "debug");
  const pack = throwingPack(err);
  const record = await runToolCall({
    call: { id: "c1", name: "probe", arguments: "{}" },
    enabled: [{ pack, config: {}, definition: pack.definition }],
    ctx: { tenantId: "t", conversationId: null, signal: new AbortController().signal, log: logger },
    timeoutMs: 2000,
    maxChars: 4000,
  });
  return { record, lines };
}

describe("a pack world error from another copy of the module", () => {
  it("from a fresh module graph reaches the model with its own message, not as a programmer error", async () => {
    const copy = await secondCopy();
    expect(copy.ToolWorldError).not.toBe(ToolWorldError);
    expect(new copy.ToolWorldError("x")).not.toBeInstanceOf(ToolWorldError);

    const { record, lines } = await runThrowing(() => new copy.ToolWorldError("Not found (HTTP 404)"));
    expect(record.outcome).toBe("error");
    expect(JSON.parse(record.result)).toEqual({ error: "Not found (HTTP 404)" });
    expect(lines.filter((l) => l.msg === "tool pack failed with a programmer error")).toEqual([]);
  });

  it("from another realm (node:vm) is recognised too", async () => {
    const realm = otherRealm();
    const err = new realm.ToolWorldError("The site did not answer with valid JSON");
    expect(err).not.toBeInstanceOf(Error);
    expect(isToolWorldError(err)).toBe(true);

    const { record } = await runThrowing(() => err);
    expect(JSON.parse(record.result)).toEqual({ error: "The site did not answer with valid JSON" });
  });

  it("an ordinary error named ToolWorldError is still a programmer error: only the brand counts", async () => {
    const { record, lines } = await runThrowing(() =>
      Object.assign(new Error("secret upstream detail"), { name: "ToolWorldError" }),
    );
    expect(JSON.parse(record.result)).toEqual({ error: "The tool failed unexpectedly; answer without it." });
    expect(lines.some((l) => l.msg === "tool pack failed with a programmer error")).toBe(true);
  });
});

describe("an AppError from another copy of the module", () => {
  it("keeps its code and status in the response instead of becoming a 500", async () => {
    for (const copy of [await secondCopy(), otherRealm()]) {
      const err = new copy.AppError("rate_limited", "Slow down.", { retryAfterSec: 7 });
      expect(err).not.toBeInstanceOf(AppError);
      expect(isAppError(err)).toBe(true);
      const res = errorResponse(err);
      expect(res.status).toBe(429);
      expect(res.headers.get("retry-after")).toBe("7");
      expect(await res.json()).toEqual({
        error: { code: "rate_limited", message: "Slow down.", retryAfterSec: 7 },
      });
    }
  });

  it("a branded object with a code this copy does not know is not trusted", () => {
    const forged = Object.assign(new Error("x"), { [Symbol.for("michi.error.app")]: true, code: "teapot" });
    expect(isAppError(forged)).toBe(false);
    expect(errorResponse(forged).status).toBe(500);
  });
});

describe("a connection failure from another copy of undici", () => {
  // undici's errors are classes of the copy that threw them (Node's bundled one, the app's, a pack's); the
  // engine reads their `code` (undici's UND_ERR_*, the OS's E*), so one built in another realm still counts as
  // a broken connection and is retried, and one that is no connection failure is not.
  const foreign = (code: string) =>
    vm.runInNewContext("Object.assign(new Error('socket'), { code })", { code }) as Error;
  const failing = (err: Error) => {
    let calls = 0;
    const dispatcher = {
      dispatch(_opts: unknown, handler: { onError(e: Error): void }) {
        calls++;
        queueMicrotask(() => handler.onError(err));
        return true;
      },
    } as unknown as Dispatcher;
    const client: ModelClient = { baseURL: "http://model.test/v1", apiKey: null, dispatcher };
    return { client, calls: () => calls };
  };
  const call = (client: ModelClient) =>
    streamCompletion({
      client,
      model: "m",
      messages: [{ role: "user", content: "hi" }],
      maxTokens: 10,
      timeoutMs: 5000,
      idleTimeoutMs: 5000,
      signal: new AbortController().signal,
      onDelta: () => {},
    });

  it("a dropped socket is retried, then model_error; a bad argument is not retried", async () => {
    const dropped = failing(foreign("UND_ERR_SOCKET"));
    expect((await call(dropped.client)).fault).toBe("model_error");
    expect(dropped.calls()).toBe(3);
    const bad = failing(foreign("UND_ERR_INVALID_ARG"));
    expect((await call(bad.client)).fault).toBe("interrupted");
    expect(bad.calls()).toBe(1);
  });
});

describe("a rate-limit refusal from another copy of the library", () => {
  // Limiters are cached on globalThis, so the one a request uses may have been built by another bundle's copy
  // of rate-limiter-flexible, whose RateLimiterRes is not this copy's class. Its refusal is a plain object
  // with numeric msBeforeNext and consumedPoints (lib/RateLimiterRes.js); here it comes from another realm.
  it("is a refusal with its wait, and a store fault still throws", async () => {
    const { limiter } = await import("@/lib/security/rate-limit");
    const g = globalThis as unknown as { __michiLimiters?: Map<string, Promise<unknown>> };
    const refusal = vm.runInNewContext("({ remainingPoints: 0, msBeforeNext: 2500, consumedPoints: 6 })");
    const saved = g.__michiLimiters;
    g.__michiLimiters = new Map([
      ["brand-test:5:60:0", Promise.resolve({ consume: () => Promise.reject(refusal) })],
      ["brand-fault:5:60:0", Promise.resolve({ consume: () => Promise.reject(new Error("store down")) })],
    ]);
    try {
      expect(await limiter({ keyPrefix: "brand-test", points: 5, durationSec: 60 }).take("k")).toBe(3);
      await expect(
        limiter({ keyPrefix: "brand-fault", points: 5, durationSec: 60 }).take("k"),
      ).rejects.toThrow("store down");
    } finally {
      g.__michiLimiters = saved;
    }
  });
});
