import "server-only";
import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";
import type { ToolOutcome, ToolRunResult } from "@/shared/tool-run";
import { isToolWorldError } from "../errors";
import type { Logger } from "../log";
import { processSlot } from "../process-slot";
import type { BookingDesk } from "./booking-desk";
import type { AnyConfig, Lang, ToolDefinition, ToolPack, ToolVisitor } from "./contract";
import type { KnowledgeSearcher } from "./knowledge-search";

// The wrapper every pack runs inside. Whatever happens in a pack (bad arguments, a 404, a bug, a hang), the
// chat loop gets a ToolRunRecord with a short, capped result the model can act on; this function never throws.
// It holds no state between calls, so the calls of one round may run at the same time. It is pure: no
// database, no environment; loading and opening a tenant's settings is src/lib/tools/config-store.ts.

export type EnabledPack = {
  pack: ToolPack;
  /** Parsed with the pack's schema, secrets decrypted. Never log it. */
  config: AnyConfig;
  /** The model-facing definition, with the pack's describe() applied. */
  definition: ToolDefinition;
};

export type ToolRunRecord = ToolRunResult & { callId: string; label: string };

export type ToolCallInput = {
  call: { id: string; name: string; arguments: string };
  enabled: EnabledPack[];
  ctx: {
    tenantId: string;
    conversationId: string | null;
    signal: AbortSignal;
    log: Logger;
    lang?: Lang;
    knowledge?: KnowledgeSearcher;
    bookings?: BookingDesk;
    /** Required for a pack with `confirm`: the stored key of the visitor's confirmed call (confirm-round.ts). */
    idempotencyKey?: string;
    visitor?: ToolVisitor;
  };
  /** The business lets packs that ask for a verified visitor run without one (absent: it does not). */
  verifiedOptional?: boolean;
  /** MICHI_TOOL_TIMEOUT_MS and MICHI_TOOL_RESULT_MAX_CHARS: the caller reads the environment, not this wrapper. */
  timeoutMs: number;
  maxChars: number;
};

// Validators are compiled once per parameters schema and reused; compiled functions keep no per-call state.
// Keyed by the schema object: a pack's own definition keeps its object, and a schema built from a tenant's
// config (parametersFor) lives as long as the opened pack that config-store.ts keeps for that tenant.
const validators = processSlot<WeakMap<object, ValidateFunction>>("ArgValidators");

function validatorFor(parameters: ToolDefinition["function"]["parameters"]): ValidateFunction {
  const bySchema = validators.use(() => new WeakMap());
  let v = bySchema.get(parameters);
  if (!v) {
    // coerceTypes: small models often send "3" for 3; useDefaults fills schema defaults before run.
    const ajv = new Ajv({ allErrors: true, coerceTypes: true, useDefaults: true, strict: false });
    v = ajv.compile(parameters);
    bySchema.set(parameters, v);
  }
  return v;
}

export function chipLabel(pack: ToolPack, lang?: string): string {
  return (lang && pack.labels?.[lang as Lang]) || pack.label;
}

/**
 * The packs offered to the model in a turn: one that asks for a verified visitor only when the visitor is
 * verified, unless the business switched that requirement off.
 */
export function offeredPacks<T extends { pack: Pick<ToolPack, "needsVerifiedVisitor"> }>(
  enabled: T[],
  verified: boolean,
  required: boolean,
): T[] {
  if (verified || !required) return enabled;
  return enabled.filter((e) => !e.pack.needsVerifiedVisitor);
}

export function toolDefinitions(enabled: readonly { definition: ToolDefinition }[]): ToolDefinition[] {
  return enabled.map((e) => e.definition);
}

export function promptHints(enabled: readonly { pack: Pick<ToolPack, "promptHint"> }[]): string[] {
  return enabled.flatMap((e) => (e.pack.promptHint ? [e.pack.promptHint] : []));
}

/**
 * The definition the model sees for a configured pack: describe() may replace the description, and
 * parametersFor() the parameters (the arguments a tenant declared).
 */
export function definitionFor(pack: ToolPack, config: AnyConfig): ToolDefinition {
  const described = pack.describe?.(config)?.trim();
  const parameters = pack.parametersFor?.(config);
  if (!described && !parameters) return pack.definition;
  return {
    ...pack.definition,
    function: {
      ...pack.definition.function,
      ...(described ? { description: described } : {}),
      ...(parameters ? { parameters } : {}),
    },
  };
}

const MARKER = (dropped: number) => `\n…[truncated: ${dropped} more characters not shown]`;

/** Caps text at `max` characters including a visible marker; never splits a surrogate pair. */
export function capResult(text: string, max: number): string {
  if (text.length <= max) return text;
  let keep = Math.max(0, max - MARKER(text.length).length);
  const code = text.charCodeAt(keep - 1);
  if (code >= 0xd800 && code <= 0xdbff) keep -= 1;
  return text.slice(0, keep) + MARKER(text.length - keep);
}

function describeAjvErrors(errors: ErrorObject[] | null | undefined) {
  return (errors ?? []).slice(0, 10).map((e) => ({
    path: e.instancePath || "/",
    message: e.message ?? "is invalid",
    ...(e.keyword === "additionalProperties"
      ? { property: (e.params as { additionalProperty?: string }).additionalProperty }
      : {}),
    ...(e.keyword === "enum" ? { allowed: (e.params as { allowedValues?: unknown[] }).allowedValues } : {}),
  }));
}

function abortPromise(signal: AbortSignal): { promise: Promise<never>; dispose(): void } {
  let onAbort = () => {};
  const promise = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason ?? new Error("aborted"));
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
  });
  promise.catch(() => {});
  return { promise, dispose: () => signal.removeEventListener("abort", onAbort) };
}

/** Runs one tool call the model asked for and returns what the model will see. Never throws. */
export async function runToolCall(input: ToolCallInput): Promise<ToolRunRecord> {
  const started = performance.now();
  const { call, ctx } = input;
  const { maxChars, timeoutMs } = input;
  const entry = input.enabled.find((e) => e.pack.id === call.name);

  const finish = (outcome: ToolOutcome, body: string | object, args: unknown | null): ToolRunRecord => {
    const text = capResult(typeof body === "string" ? body : JSON.stringify(body), maxChars);
    return {
      callId: call.id,
      packId: entry?.pack.id ?? call.name,
      label: entry ? chipLabel(entry.pack, ctx.lang) : call.name,
      args,
      result: text,
      resultChars: text.length,
      durationMs: Math.round(performance.now() - started),
      outcome,
    };
  };

  if (!entry) {
    return finish(
      "unknown_tool",
      {
        error: "unknown_tool",
        message: `There is no tool named "${String(call.name).slice(0, 64)}".`,
        available: input.enabled.map((e) => e.pack.id),
      },
      null,
    );
  }

  // Never offered to an unverified visitor (offeredPacks); refused here too, whatever list the caller passed.
  if (entry.pack.needsVerifiedVisitor && !ctx.visitor && !input.verifiedOptional) {
    return finish(
      "error",
      {
        error: "verified_visitor_required",
        message: "This tool works only for a visitor signed in on the business's site; answer without it.",
      },
      null,
    );
  }

  const parsed = parseToolArgs(entry, call.arguments);
  if (!parsed.ok) return finish("invalid_args", parsed.error, parsed.args);
  const args = parsed.args;
  if (entry.pack.confirm && !ctx.idempotencyKey) {
    // A programmer error: only the confirmation flow (src/lib/chat/decide-turn.ts) may run such a pack,
    // with the key of the visitor's confirmed call. Never on the model's say-so.
    ctx.log.error({ packId: entry.pack.id, callId: call.id }, "confirm pack run without an idempotency key");
    return finish("error", { error: "This action needs the visitor's confirmation first." }, args);
  }

  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = AbortSignal.any([ctx.signal, timeout]);
  const aborted = abortPromise(signal);
  try {
    // The race matters for packs that ignore the signal: the loop moves on even if their promise never settles.
    const out = await Promise.race([entry.pack.run(entry.config, args, { ...ctx, signal }), aborted.promise]);
    if (typeof out !== "string" && (typeof out !== "object" || out === null)) {
      throw new TypeError(`pack ${entry.pack.id} returned ${out === null ? "null" : typeof out}`);
    }
    return finish("ok", out, args);
  } catch (err) {
    if (timeout.aborted) {
      return finish(
        "timeout",
        { error: `The tool did not answer within ${Math.round(timeoutMs / 1000)} s` },
        args,
      );
    }
    if (ctx.signal.aborted) return finish("error", { error: "The request was cancelled" }, args);
    // By brand: the pack may have thrown a ToolWorldError from another copy of the module (another bundle).
    if (isToolWorldError(err)) return finish("error", { error: err.message }, args);
    ctx.log.error(
      { err, packId: entry.pack.id, callId: call.id },
      "tool pack failed with a programmer error",
    );
    return finish("error", { error: "The tool failed unexpectedly; answer without it." }, args);
  } finally {
    aborted.dispose();
  }
}

type ParsedArgs =
  | { ok: true; args: Record<string, unknown> }
  | { ok: false; args: unknown | null; error: object };

/**
 * The model's arguments for a pack, parsed and validated against the schema the model saw (defaults filled,
 * "3" coerced to 3), or the error body the model is sent. Used by the wrapper and, for a pack with
 * `confirm`, before the call is stored and shown to the visitor.
 */
export function parseToolArgs(entry: EnabledPack, raw: string): ParsedArgs {
  let args: unknown;
  try {
    args = raw.trim() === "" ? {} : JSON.parse(raw);
  } catch {
    const details = [{ path: "/", message: "arguments are not valid JSON" }];
    return { ok: false, args: null, error: { error: "invalid_tool_arguments", details } };
  }
  if (typeof args !== "object" || args === null || Array.isArray(args)) {
    const details = [{ path: "/", message: "arguments must be a JSON object" }];
    return { ok: false, args, error: { error: "invalid_tool_arguments", details } };
  }
  const validate = validatorFor(entry.definition.function.parameters);
  // validate.errors lives on the shared function, but validation is synchronous and read right away, so
  // concurrent calls cannot see each other's errors.
  if (!validate(args)) {
    const details = describeAjvErrors(validate.errors);
    return { ok: false, args, error: { error: "invalid_tool_arguments", details } };
  }
  return { ok: true, args: args as Record<string, unknown> };
}
