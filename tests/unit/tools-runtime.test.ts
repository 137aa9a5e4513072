import { describe, expect, it } from "vitest";
import { createLogger } from "@/lib/log";
import { ToolWorldError } from "@/lib/security/fetch";
import { definePack, type ToolArgs, type ToolPack } from "@/lib/tools/contract";
import {
  capResult,
  chipLabel,
  definitionFor,
  type EnabledPack,
  promptHints,
  runToolCall,
  toolDefinitions,
} from "@/lib/tools/runtime";
import { estimateTokens } from "@/lib/tools/tokens";

// The wrapper around every pack: what the model receives whatever the pack does, and that run() is only
// reached with arguments that match the schema.

function capture() {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger({ write: (s: string) => void lines.push(JSON.parse(s)) }, "debug");
  return { lines, logger };
}

function packWith(run: (args: ToolArgs, signal: AbortSignal) => Promise<string | object>): {
  pack: ToolPack;
  calls: ToolArgs[];
} {
  const calls: ToolArgs[] = [];
  const pack = definePack({
    id: "probe",
    label: "Probing",
    labels: { ja: "調べています" },
    promptHint: "Use probe for probing.",
    definition: {
      type: "function",
      function: {
        name: "probe",
        description: "A test pack.",
        parameters: {
          type: "object",
          properties: {
            city: { type: "string", minLength: 1 },
            days: { type: "integer", minimum: 1, maximum: 7 },
          },
          required: ["city"],
          additionalProperties: false,
        },
      },
    },
    configFields: [{ key: "note", label: "Note", type: "text" }],
    describe: (config) => config.note,
    run(_config, args, ctx) {
      calls.push(args);
      return run(args, ctx.signal);
    },
  });
  return { pack, calls };
}

const enabledOf = (pack: ToolPack, config = {}): EnabledPack => ({
  pack,
  config,
  definition: definitionFor(pack, config),
});

function call(
  name: string,
  args: string,
  enabled: EnabledPack[],
  opts: { signal?: AbortSignal; timeoutMs?: number; maxChars?: number; lang?: "ja" } = {},
) {
  const { logger, lines } = capture();
  const record = runToolCall({
    call: { id: `call_${name}`, name, arguments: args },
    enabled,
    ctx: {
      tenantId: "t",
      conversationId: null,
      signal: opts.signal ?? new AbortController().signal,
      log: logger,
      lang: opts.lang,
    },
    timeoutMs: opts.timeoutMs ?? 5000,
    maxChars: opts.maxChars ?? 4000,
  });
  return { record, lines };
}

describe("runToolCall", () => {
  it("runs a pack with valid arguments and reports size and label", async () => {
    const { pack, calls } = packWith(async (args) => ({ city: args.city, days: args.days }));
    const r = await call("probe", '{"city":"Kyoto","days":"3"}', [enabledOf(pack)], { lang: "ja" }).record;
    expect(r.outcome).toBe("ok");
    // "3" was coerced to 3 by the schema before run saw it.
    expect(JSON.parse(r.result)).toEqual({ city: "Kyoto", days: 3 });
    expect(calls).toEqual([{ city: "Kyoto", days: 3 }]);
    expect(r).toMatchObject({
      callId: "call_probe",
      packId: "probe",
      label: "調べています",
      resultChars: r.result.length,
    });
  });

  it("answers unparsable arguments with invalid_tool_arguments and never calls run", async () => {
    const { pack, calls } = packWith(async () => "x");
    const r = await call("probe", '{"city": "Kyo', [enabledOf(pack)]).record;
    expect(r.outcome).toBe("invalid_args");
    expect(JSON.parse(r.result)).toMatchObject({
      error: "invalid_tool_arguments",
      details: [{ message: expect.stringMatching(/JSON/) }],
    });
    expect(r.args).toBeNull();
    const arr = await call("probe", "[1,2]", [enabledOf(pack)]).record;
    expect(arr.outcome).toBe("invalid_args");
    expect(calls).toEqual([]);
  });

  it("answers schema-invalid arguments with the details and never calls run", async () => {
    const { pack, calls } = packWith(async () => "x");
    const r = await call("probe", '{"days": 12, "extra": true}', [enabledOf(pack)]).record;
    expect(r.outcome).toBe("invalid_args");
    const body = JSON.parse(r.result);
    expect(body.error).toBe("invalid_tool_arguments");
    const text = JSON.stringify(body.details);
    expect(text).toMatch(/city/);
    expect(text).toMatch(/extra/);
    expect(text).toMatch(/days/);
    expect(calls).toEqual([]);
  });

  it("answers an unknown tool name without throwing", async () => {
    const { pack } = packWith(async () => "x");
    const r = await call("drop_tables", "{}", [enabledOf(pack)]).record;
    expect(r.outcome).toBe("unknown_tool");
    expect(JSON.parse(r.result)).toMatchObject({ error: "unknown_tool", available: ["probe"] });
  });

  it("turns a world error into a short message for the model", async () => {
    const { pack } = packWith(async () => {
      throw new ToolWorldError("Not found (HTTP 404)");
    });
    const { record, lines } = call("probe", '{"city":"x"}', [enabledOf(pack)]);
    const r = await record;
    expect(r.outcome).toBe("error");
    expect(JSON.parse(r.result)).toEqual({ error: "Not found (HTTP 404)" });
    expect(lines.filter((l) => l.level === 50)).toEqual([]);
  });

  it("logs a programmer error with its stack and gives the model a generic error", async () => {
    const { pack } = packWith(async () => {
      throw new TypeError("cannot read properties of undefined (reading 'secretThing')");
    });
    const { record, lines } = call("probe", '{"city":"x"}', [enabledOf(pack)]);
    const r = await record;
    expect(r.outcome).toBe("error");
    expect(r.result).not.toMatch(/secretThing/);
    expect(JSON.parse(r.result).error).toMatch(/unexpectedly/);
    const logged = lines.find((l) => l.level === 50) as { err?: { stack?: string }; packId?: string };
    expect(logged?.packId).toBe("probe");
    expect(logged?.err?.stack).toMatch(/TypeError/);
  });

  it("times out a pack that never answers, even one that ignores its signal", async () => {
    const { pack } = packWith(() => new Promise(() => {}));
    const r = await call("probe", '{"city":"x"}', [enabledOf(pack)], { timeoutMs: 30 }).record;
    expect(r.outcome).toBe("timeout");
    expect(JSON.parse(r.result).error).toMatch(/did not answer/);
  });

  it("passes an aborting signal to the pack and reports a cancelled visitor request", async () => {
    let seen: AbortSignal | undefined;
    const { pack } = packWith(
      (_args, signal) =>
        new Promise((_, reject) => {
          seen = signal;
          signal.addEventListener("abort", () => reject(new ToolWorldError("The request was cancelled")));
        }),
    );
    const ac = new AbortController();
    const pending = call("probe", '{"city":"x"}', [enabledOf(pack)], { signal: ac.signal }).record;
    await Promise.resolve();
    ac.abort();
    const r = await pending;
    expect(seen?.aborted).toBe(true);
    expect(r.outcome).toBe("error");
    expect(JSON.parse(r.result).error).toMatch(/cancelled/);
  });

  it("caps a 1 MB result with a visible marker", async () => {
    const { pack } = packWith(async () => ({ blob: "é".repeat(1024 * 1024) }));
    const r = await call("probe", '{"city":"x"}', [enabledOf(pack)], { maxChars: 4000 }).record;
    expect(r.outcome).toBe("ok");
    expect(r.result.length).toBeLessThanOrEqual(4000);
    expect(r.resultChars).toBe(r.result.length);
    expect(r.result).toMatch(/…\[truncated: \d+ more characters not shown\]$/);
  });

  it("runs two calls of one round at the same time", async () => {
    const order: string[] = [];
    const gates = new Map<string, () => void>();
    const started = new Map<string, Promise<void>>();
    const startedResolvers = new Map<string, () => void>();
    for (const id of ["a", "b"]) {
      started.set(id, new Promise<void>((r) => startedResolvers.set(id, r)));
    }
    const { pack } = packWith(async (args) => {
      const id = String(args.city);
      order.push(`start ${id}`);
      startedResolvers.get(id)!();
      // Each call finishes only once the other has started: run one after the other, this never ends.
      await started.get(id === "a" ? "b" : "a");
      await new Promise<void>((r) => gates.set(id, r));
      order.push(`end ${id}`);
      return id;
    });
    const enabled = [enabledOf(pack)];
    const a = call("probe", '{"city":"a"}', enabled).record;
    const b = call("probe", '{"city":"b"}', enabled).record;
    await Promise.all(started.values());
    await new Promise((r) => setImmediate(r));
    gates.get("b")!();
    gates.get("a")!();
    const [ra, rb] = await Promise.all([a, b]);
    expect(order.slice(0, 2).sort()).toEqual(["start a", "start b"]);
    expect([ra.result, rb.result]).toEqual(["a", "b"]);
  });
});

describe("definitions, hints and labels", () => {
  it("applies describe() to the model-facing description and lists prompt hints", () => {
    const { pack } = packWith(async () => "x");
    const e = enabledOf(pack, { note: "Use this for events." });
    expect(toolDefinitions([e])[0]!.function.description).toBe("Use this for events.");
    expect(pack.definition.function.description).toBe("A test pack.");
    expect(toolDefinitions([enabledOf(pack, {})])[0]!.function.description).toBe("A test pack.");
    expect(promptHints([e])).toEqual(["Use probe for probing."]);
    expect(chipLabel(pack, "ja")).toBe("調べています");
    expect(chipLabel(pack, "fr")).toBe("Probing");
    expect(chipLabel(pack)).toBe("Probing");
  });

  it("caps without splitting a surrogate pair, and estimates tokens", () => {
    const capped = capResult("😀".repeat(500), 201);
    expect(capped.length).toBeLessThanOrEqual(201);
    expect(capped).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])/);
    expect(estimateTokens("")).toBe(0);
    expect(estimateTokens("Are you open on Sunday?")).toBeGreaterThan(3);
    expect(estimateTokens("a ".repeat(1000))).toBeGreaterThan(estimateTokens("a ".repeat(10)));
  });
});
