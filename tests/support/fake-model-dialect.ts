import { randomUUID } from "node:crypto";
import type { ServerResponse } from "node:http";
import { type Dialect, type DialectFlags, frames } from "./dialects";
import { openai } from "./dialects/openai";
import { type FakeChatBody, fillTemplate, promptTokens, roughTokens, type Step } from "./fake-model-script";

// Plays a scripted step in a provider's dialect (tests/support/dialects): its refusals first, then its exact
// chunk sequence. Used for every step when the fake model has a dialect, and for the stop kinds the plain
// player does not know (length, content_filter, stream_error).

export type DialectSetting = { dialect: Dialect; flags: DialectFlags };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** True when the step was answered here. */
export async function playDialect(
  res: ServerResponse,
  body: FakeChatBody,
  step: Step,
  setting: DialectSetting | null,
  closed: () => boolean,
): Promise<boolean> {
  const d = setting?.dialect ?? openai;
  if (!setting && !["length", "content_filter", "stream_error"].includes(step.type)) return false;
  const refusal = setting ? d.refuse(body, setting.flags) : null;
  if (refusal) {
    res.writeHead(refusal.status, { "content-type": "application/json", ...refusal.headers });
    res.end(JSON.stringify(refusal.body));
    return true;
  }
  if (
    step.type === "http_error" ||
    step.type === "stall" ||
    step.type === "slow_text" ||
    step.type === "hangup" ||
    step.type === "silent"
  )
    return false;
  // A real server cannot call tools it was not offered: the model answers in words instead.
  if (setting && step.type === "tool_calls" && !(Array.isArray(body.tools) && body.tools.length > 0)) {
    step = { type: "text", text: "I cannot look that up right now." };
  }

  const meta = { id: `chatcmpl-${randomUUID()}`, created: Math.floor(Date.now() / 1000), model: body.model };
  const wantUsage = body.stream_options?.include_usage === true;
  const calls =
    step.type === "tool_calls"
      ? step.calls.map((c, i) => ({
          id: c.id ?? `${d.opts.idPrefix}${randomUUID().slice(0, 8)}${i}`,
          name: c.name,
          arguments: c.arguments,
        }))
      : undefined;
  const answer = step.type === "tool_calls" ? "" : fillTemplate(step.text, body.messages);
  const reasoning = d.opts.reasoningField ? "Let me think about what the visitor needs." : undefined;
  const end =
    step.type === "cut"
      ? "cut"
      : step.type === "length" || step.type === "content_filter" || step.type === "stream_error"
        ? step.type
        : "stop";
  const produced = answer + JSON.stringify(calls ?? "");
  const usage = { prompt: promptTokens(body), completion: roughTokens(produced) };
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  res.flushHeaders();
  for (const frame of frames(d, meta, { answer, reasoning, calls }, end, usage, wantUsage)) {
    if (closed()) return true;
    res.write(`${frame}\n\n`);
  }
  if (end === "cut" || (end === "stream_error" && d.opts.streamError === "error-field")) {
    // Let the written frames leave, then drop the connection without [DONE].
    await sleep(20);
    res.socket?.destroy();
    return true;
  }
  res.end();
  return true;
}
