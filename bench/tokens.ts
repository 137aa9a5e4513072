import { estimateTokens } from "../src/lib/tools/tokens";
import { type FakeMessage, fakeModelControl, type RecordedRequest } from "../tests/support/fake-model";
import type { Client } from "./lib/client";
import { productCatalogue } from "./lib/payloads";
import { KEYS } from "./lib/seed";
import type { World } from "./lib/servers";
import { round } from "./lib/stats";

// Tokens the tenant pays for. Both figures are read from what the fake model was actually sent by the
// production server, counted with the platform's own tokenizer (gpt-tokenizer, o200k_base, bundled).
//  - projectionRatio: the fetch_json result the model saw / the raw ~200 KB payload the site served.
//  - historyRatio: prompt tokens of a scripted 10-turn conversation / the same conversation if every earlier
//    turn's tool call and tool result were re-sent on every later request.

const QUESTIONS = [
  "Do you have waterproof jackets?",
  "What running shoes are in stock?",
  "Anything under 50 pounds?",
  "Which backpacks do you sell?",
  "Do you have merino base layers?",
  "What is your cheapest tent?",
  "Are trail shoes in stock in size M?",
  "Which brand is the most popular?",
  "Do you have socks for hiking?",
  "What would you recommend for a rainy weekend?",
];

/** About what a chat API counts per message: its content, the tool calls it carries, and a few framing tokens. */
export function messageTokens(m: FakeMessage): number {
  const content = typeof m.content === "string" ? m.content : m.content ? JSON.stringify(m.content) : "";
  return (
    3 +
    estimateTokens(m.role) +
    estimateTokens(content) +
    (m.tool_calls ? estimateTokens(JSON.stringify(m.tool_calls)) : 0)
  );
}

export function requestTokens(r: RecordedRequest): number {
  const tools = r.body.tools ? estimateTokens(JSON.stringify(r.body.tools)) : 0;
  return 3 + tools + r.body.messages.reduce((a, m) => a + messageTokens(m), 0);
}

export type TokensResult = {
  rawPayloadBytes: number;
  rawPayloadTokens: number;
  projectedTokens: number;
  projectionRatio: number;
  turns: number;
  requests: number;
  promptTokensSent: number;
  promptTokensIfResent: number;
  historyRatio: number;
};

export async function benchTokens(opts: { world: World; client: Client; log: (s: string) => void }) {
  const model = fakeModelControl(opts.world.modelUrl);
  await model.reset();
  await model.setRules([
    {
      match: "shop:",
      steps: [
        { type: "tool_calls", calls: [{ name: "fetch_json", arguments: "{}" }] },
        {
          type: "text",
          text: "We have {{tool.products.0.name}} at {{tool.products.0.price}} GBP. Shall I find more?",
        },
      ],
    },
  ]);
  const token = await opts.client.session(KEYS.tokens);
  let conversationId: string | undefined;
  for (const q of QUESTIONS) {
    const r = await opts.client.chat(
      `/api/widget/${KEYS.tokens}/chat`,
      { message: `shop: ${q}`, conversationId },
      { authorization: `Bearer ${token}` },
    );
    if (!r.done)
      throw new Error(`token benchmark turn failed: ${JSON.stringify(r.error ?? r.transportError)}`);
    conversationId = r.conversationId ?? undefined;
  }
  const requests = await model.requests();
  if (requests.length !== QUESTIONS.length * 2) {
    throw new Error(`expected ${QUESTIONS.length * 2} model requests, got ${requests.length}`);
  }

  // Each turn: request 1 offers the tool, request 2 carries the tool call and its result.
  const raw = JSON.stringify(productCatalogue());
  const rawTokens = estimateTokens(raw);
  const toolRounds: FakeMessage[][] = [];
  let sent = 0;
  let resent = 0;
  for (let turn = 0; turn < QUESTIONS.length; turn++) {
    const pair = [requests[2 * turn]!, requests[2 * turn + 1]!];
    const msgs = pair[1]!.body.messages;
    const toolIdx = msgs.findIndex((m) => m.role === "tool");
    if (toolIdx < 1 || msgs.filter((m) => m.role === "tool").length !== 1) {
      throw new Error(`turn ${turn + 1}: expected exactly one tool result in the second request`);
    }
    const earlier = toolRounds.flat().reduce((a, m) => a + messageTokens(m), 0);
    for (const r of pair) {
      sent += requestTokens(r);
      resent += requestTokens(r) + earlier;
    }
    toolRounds.push([msgs[toolIdx - 1]!, msgs[toolIdx]!]);
  }
  const projected = estimateTokens(String(toolRounds[0]![1]!.content));
  const result: TokensResult = {
    rawPayloadBytes: Buffer.byteLength(raw),
    rawPayloadTokens: rawTokens,
    projectedTokens: projected,
    projectionRatio: round(projected / rawTokens, 4),
    turns: QUESTIONS.length,
    requests: requests.length,
    promptTokensSent: sent,
    promptTokensIfResent: resent,
    historyRatio: round(sent / resent, 3),
  };
  opts.log(
    `  tokens: payload ${rawTokens} → projected ${projected} (${result.projectionRatio}); ` +
      `10 turns sent ${sent} vs ${resent} if re-sent (${result.historyRatio})`,
  );
  return result;
}
