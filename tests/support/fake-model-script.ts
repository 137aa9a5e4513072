import { z } from "zod";

// The script language of the fake model (tests/support/fake-model.ts): steps, rules, how a request picks its
// step, and the {{tool}} templates. Pure functions, so the server stays small.

export type Step =
  | { type: "text"; text: string; chunkSize?: number; delayMs?: number }
  | { type: "tool_calls"; calls: { name: string; arguments: string; id?: string }[] }
  | {
      type: "http_error";
      status: number;
      body?: unknown;
      retryAfterMs?: number;
      headers?: Record<string, string>;
    }
  | { type: "length"; text: string }
  | { type: "content_filter"; text: string }
  | { type: "stream_error"; text: string }
  | { type: "stall" }
  | { type: "cut"; text: string }
  | { type: "hangup" }
  | { type: "silent" }
  | { type: "slow_text"; text: string; chunkDelayMs: number };

export type Rule = { match: string; steps: Step[] };

export const messageSchema = z.looseObject({
  role: z.string(),
  content: z.union([z.string(), z.array(z.unknown()), z.null()]).optional(),
  tool_call_id: z.string().optional(),
  tool_calls: z
    .array(z.looseObject({ id: z.string(), function: z.object({ name: z.string(), arguments: z.string() }) }))
    .optional(),
});

export const bodySchema = z.looseObject({
  model: z.string(),
  messages: z.array(messageSchema).min(1),
  stream: z.boolean().optional(),
  stream_options: z.looseObject({ include_usage: z.boolean().optional() }).nullish(),
  tools: z.array(z.unknown()).optional(),
  max_tokens: z.number().optional(),
});

export type FakeChatBody = z.infer<typeof bodySchema>;
export type FakeMessage = z.infer<typeof messageSchema>;

export const stepSchema: z.ZodType<Step> = z.discriminatedUnion("type", [
  z.object({
    type: z.literal("text"),
    text: z.string(),
    chunkSize: z.number().int().positive().optional(),
    delayMs: z.number().nonnegative().optional(),
  }),
  z.object({
    type: z.literal("tool_calls"),
    calls: z.array(z.object({ name: z.string(), arguments: z.string(), id: z.string().optional() })).min(1),
  }),
  z.object({
    type: z.literal("http_error"),
    status: z.number().int().min(400).max(599),
    body: z.unknown().optional(),
    retryAfterMs: z.number().nonnegative().optional(),
    headers: z.record(z.string(), z.string()).optional(),
  }),
  z.object({ type: z.literal("length"), text: z.string() }),
  z.object({ type: z.literal("content_filter"), text: z.string() }),
  z.object({ type: z.literal("stream_error"), text: z.string() }),
  z.object({ type: z.literal("stall") }),
  z.object({ type: z.literal("cut"), text: z.string() }),
  /** Closes the connection without answering at all, as a keep-alive socket the server dropped. */
  z.object({ type: z.literal("hangup") }),
  z.object({ type: z.literal("silent") }),
  z.object({ type: z.literal("slow_text"), text: z.string(), chunkDelayMs: z.number().nonnegative() }),
]);
export const rulesSchema = z.array(z.object({ match: z.string(), steps: z.array(stepSchema).min(1) }));

/** Rough token estimate, close enough for usage accounting tests: about four characters per token. */
export const roughTokens = (s: string) => (s.length === 0 ? 0 : Math.ceil(s.length / 4));

const textOf = (m: FakeMessage | undefined) =>
  typeof m?.content === "string" ? m.content : Array.isArray(m?.content) ? JSON.stringify(m.content) : "";

/** Which step to play: the script is indexed by how many assistant turns followed the last user message. */
export function pickStep(rules: Rule[], messages: FakeMessage[]): Step {
  let lastUser = -1;
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i]?.role === "user") {
      lastUser = i;
      break;
    }
  }
  const userText = textOf(messages[lastUser]);
  const round = messages.slice(lastUser + 1).filter((m) => m.role === "assistant").length;
  const rule = rules.find((r) => userText.toLowerCase().includes(r.match.toLowerCase()));
  if (!rule) return { type: "text", text: `You said: ${userText}` };
  return rule.steps[Math.min(round, rule.steps.length - 1)]!;
}

/** Fills `{{tool}}` and `{{tool.a.b}}` from the last tool message of the request. */
export function fillTemplate(text: string, messages: FakeMessage[]): string {
  const lastTool = [...messages].reverse().find((m) => m.role === "tool");
  const raw = textOf(lastTool);
  return text.replace(/\{\{tool((?:\.[\w-]+)*)\}\}/g, (_all, path: string) => {
    if (!path) return raw;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      return "";
    }
    for (const key of path.slice(1).split(".")) {
      value = value && typeof value === "object" ? (value as Record<string, unknown>)[key] : undefined;
    }
    if (value === undefined || value === null) return "";
    return typeof value === "string" ? value : JSON.stringify(value);
  });
}

export function promptTokens(body: FakeChatBody) {
  const text = body.messages.map((m) => textOf(m) + JSON.stringify(m.tool_calls ?? "")).join("");
  return roughTokens(text) + roughTokens(JSON.stringify(body.tools ?? ""));
}
