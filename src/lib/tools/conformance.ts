import "server-only";
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { createLogger } from "../log";
import { ToolWorldError, withFetcher } from "../security/fetch";
import { packListFaults } from "./check";
import { configSchema } from "./config";
import type { ToolPack } from "./contract";
import type { KnowledgeSearcher } from "./knowledge-search";
import { definitionFor, runToolCall } from "./runtime";
import { estimateTokens } from "./tokens";

// The conformance kit behind `npm run check:packs`: for every registered pack, the pack list rules, a source
// scan for network clients other than getJson, and a run on the pack's declared example against canned
// upstream answers, within the timeout and under the result cap.

export type PackReport = { id: string; ok: boolean; lines: string[] };

// Anything that can open a connection without the guarded fetch. Packs reach the network through getJson only.
const FORBIDDEN: { re: RegExp; what: string }[] = [
  {
    re: /\bfrom\s+["'](?:node:)?(?:http|https|http2|net|tls|dgram|dns|child_process|worker_threads)["']/,
    what: "a Node network module",
  },
  {
    re: /\b(?:require|import)\s*\(\s*["'](?:node:)?(?:http|https|http2|net|tls|dgram|dns|child_process)["']\s*\)/,
    what: "a Node network module",
  },
  {
    re: /["'](?:undici|axios|node-fetch|got|ky|superagent|request|cross-fetch|ws|isomorphic-fetch|needle|phin)["']/,
    what: "an HTTP client package",
  },
  { re: /\bfetch\s*\(/, what: "fetch()" },
  { re: /\bXMLHttpRequest\b|\bWebSocket\b|\bEventSource\b/, what: "a browser network API" },
  {
    re: /\b(?:createGuardedFetcher|createGuardedAgent|withFetcher|defaultFetcher)\b/,
    what: "the fetcher internals",
  },
  { re: /\brequire\s*\(/, what: "require()" },
  { re: /\bimport\s*\(/, what: "a dynamic import" },
];

/** Source text without comments, so prose about fetch() never trips the scan. */
function codeOnly(src: string): string {
  return src.replace(/\/\*[\s\S]*?\*\//g, " ").replace(/(^|[^:"'`\\])\/\/.*$/gm, "$1");
}

/** Network faults in one pack source file. */
export function sourceFaults(source: string): string[] {
  const code = codeOnly(source);
  return FORBIDDEN.filter((f) => f.re.test(code)).map(
    (f) => `uses ${f.what}; packs must fetch through getJson`,
  );
}

/** Every .ts file under `dir`, by path. */
export function readSources(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = path.join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (/\.tsx?$/.test(name)) out[p] = readFileSync(p, "utf8");
    }
  };
  walk(dir);
  return out;
}

/** The source file that declares a pack id, if any. */
function fileOf(id: string, sources: Record<string, string>): string | undefined {
  const re = new RegExp(`\\bid:\\s*["'\`]${id}["'\`]`);
  return Object.keys(sources).find((p) => re.test(sources[p]!));
}

/** "TypeError: message" of the error in one of the wrapper's log lines, or "" for a line without one. */
function thrownMessage(line: string): string {
  try {
    const err = (JSON.parse(line) as { err?: { type?: string; message?: string } }).err;
    return err?.message ? `${err.type ?? "Error"}: ${err.message.slice(0, 300)}` : "";
  } catch {
    return "";
  }
}

const MARKER = /…\[truncated: \d+ more characters not shown\]$/;

async function runExample(pack: ToolPack, timeoutMs: number, maxChars: number): Promise<string[]> {
  const ex = pack.example;
  if (!ex) return ["FAULT declares no example: add `example: { config, args }` so the kit can run it"];
  const faults: string[] = [];
  const parsed = configSchema(pack).safeParse(ex.config);
  if (!parsed.success) return ["FAULT example config does not validate"];
  const requested: string[] = [];
  const canned = {
    async getJson(url: string, opts?: { query?: Record<string, string | number | undefined> }) {
      const u = new URL(url);
      for (const [k, v] of Object.entries(opts?.query ?? {}))
        if (v !== undefined) u.searchParams.set(k, String(v));
      requested.push(u.toString());
      if (u.protocol !== "https:") throw new ToolWorldError("not https");
      const fixtures = ex.fixtures ?? {};
      if (!Object.hasOwn(fixtures, u.pathname))
        throw new ToolWorldError(`Not found (HTTP 404) ${u.pathname}`);
      return structuredClone(fixtures[u.pathname]);
    },
    // A confirming pack's write is answered from the same fixtures, and nothing leaves the machine.
    async postJson(url: string) {
      return canned.getJson(url);
    },
  };
  // The wrapper gives the model a generic error for a bug and logs the error itself: the kit keeps that line,
  // so the author reads what was thrown instead of "failed unexpectedly".
  const thrown: string[] = [];
  const silent = createLogger({ write: (line: string) => void thrown.push(thrownMessage(line)) }, "error");
  // The search_knowledge pack reads the index through its own door; the example's "/knowledge" fixture
  // stands in for it, as the other fixtures stand in for the site.
  const knowledge = async () =>
    structuredClone((ex.fixtures ?? {})["/knowledge"] ?? { curated: null, passages: [] });
  const record = await withFetcher(canned, () =>
    runToolCall({
      call: { id: "conformance", name: pack.id, arguments: JSON.stringify(ex.args) },
      enabled: [{ pack, config: parsed.data, definition: definitionFor(pack, parsed.data) }],
      ctx: {
        tenantId: "00000000-0000-4000-8000-000000000000",
        conversationId: null,
        signal: new AbortController().signal,
        log: silent,
        knowledge: knowledge as unknown as KnowledgeSearcher,
        // request_booking files through its own door too: a stand-in that files nothing.
        bookings: async () => ({ id: "00000000-0000-4000-8000-00000000b00c" }),
        // As the confirmation flow passes it: a pack with `confirm` refuses to run without one.
        ...(pack.confirm ? { idempotencyKey: "00000000-0000-4000-8000-00000000c0f1" } : {}),
        // A pack that acts for a known person runs its example as one, as the platform would run it.
        ...(pack.needsVerifiedVisitor
          ? { visitor: { id: "example-visitor", email: "ana@example.com", name: "Ana" } }
          : {}),
      },
      timeoutMs,
      maxChars,
    }),
  );
  const bug = thrown.find(Boolean);
  if (record.outcome === "timeout") faults.push(`did not answer within ${timeoutMs} ms on its example`);
  else if (bug) faults.push(`example run threw ${bug}`);
  else if (record.outcome !== "ok")
    faults.push(`example run failed (${record.outcome}): ${record.result.slice(0, 200)}`);
  if (MARKER.test(record.result)) faults.push(`example result is over the ${maxChars}-character cap`);
  // The model's words may only travel as query values: never in a host or a path.
  const argWords = Object.values(ex.args).filter((v): v is string => typeof v === "string" && v.length >= 3);
  for (const r of requested) {
    const u = new URL(r);
    const hostAndPath = decodeURIComponent(`${u.hostname}${u.pathname}`).toLowerCase();
    for (const w of argWords) {
      if (hostAndPath.includes(w.toLowerCase()))
        faults.push(`a model argument ("${w}") appears in the URL host or path`);
    }
  }
  if (faults.length === 0)
    return [
      `example → ${record.resultChars} chars, ~${estimateTokens(record.result)} tokens, ${requested.length} request(s)`,
    ];
  return faults.map((f) => `FAULT ${f}`);
}

/** Checks every pack; `sources` maps file paths to their text (src/lib/tools by default). */
export async function runConformance(
  packs: readonly ToolPack[],
  opts: { sources: Record<string, string>; timeoutMs: number; maxChars: number },
): Promise<PackReport[]> {
  const listFaults = packListFaults(packs);
  const reports: PackReport[] = [];
  for (const [i, pack] of packs.entries()) {
    const id = typeof pack?.id === "string" && pack.id ? pack.id : `#${i + 1}`;
    const lines: string[] = [];
    const prefix = `Tool pack ${typeof pack?.id === "string" && pack.id ? `"${pack.id}"` : `#${i + 1}`}: `;
    const own = listFaults.filter((f) => f.startsWith(prefix)).map((f) => f.slice(prefix.length));
    for (const f of own) lines.push(`FAULT ${f}`);
    const file = fileOf(id, opts.sources);
    if (!file) lines.push("FAULT source file not found under src/lib/tools (needed for the network scan)");
    else for (const f of sourceFaults(opts.sources[file]!)) lines.push(`FAULT ${path.basename(file)} ${f}`);
    if (own.length === 0) {
      try {
        lines.push(...(await runExample(pack, opts.timeoutMs, opts.maxChars)));
      } catch (e) {
        lines.push(`FAULT example run threw: ${(e as Error).message}`);
      }
    }
    reports.push({ id, ok: !lines.some((l) => l.startsWith("FAULT")), lines });
  }
  return reports;
}
