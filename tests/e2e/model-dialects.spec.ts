import { type APIRequestContext, expect, test } from "@playwright/test";
import { DIALECTS } from "../support/dialects";
import { E2E } from "../support/e2e-env";
import { CAFE, model } from "./widget-helpers";

// Every provider dialect (tests/support/dialects) through the production server: a plain turn, a one-tool
// turn and a two-parallel-tools turn, with chips, the right tool_call_ids sent back and a clean end. The
// server runs with no preset, as an operator who only set OPENAI_BASE_URL would: what a dialect refuses is
// learned by the running process. Mistral goes last because what it teaches (no stream_options) is then
// remembered for the same server and model.

type Event = { event: string; data: Record<string, unknown> };

function parseSse(text: string): Event[] {
  return text
    .split("\n\n")
    .map((block) => {
      const event = /^event: (.*)$/m.exec(block)?.[1];
      const data = /^data: (.*)$/m.exec(block)?.[1];
      return event && data ? { event, data: JSON.parse(data) as Record<string, unknown> } : null;
    })
    .filter((e): e is Event => e !== null);
}

async function chat(request: APIRequestContext, token: string, message: string, conversationId?: string) {
  const res = await request.post(`/api/widget/${CAFE}/chat`, {
    headers: { origin: E2E.hostPageOrigin, authorization: `Bearer ${token}` },
    data: { message, ...(conversationId ? { conversationId } : {}) },
  });
  expect(res.status()).toBe(200);
  return parseSse(await res.text());
}

const ordered = [
  ...DIALECTS.filter((d) => d.name !== "mistral"),
  ...DIALECTS.filter((d) => d.name === "mistral"),
];
const call = (id: string) => ({ id, name: "get_opening_status", arguments: "{}" });
const answer = { type: "text" as const, text: "Open: {{tool.open}}." };

test.afterAll(async () => {
  await model.dialect(null);
  await model.reset();
});

for (const d of ordered) {
  test(`${d.name}: plain, one tool and two parallel tools through the production server`, async ({
    request,
  }) => {
    await model.reset();
    await model.dialect(d.name);
    const tag = d.name.replace(/\W/g, "");
    await model.setRules([
      { match: `plain ${tag}`, steps: [{ type: "text", text: `Hello from ${d.name}.` }] },
      { match: `one ${tag}`, steps: [{ type: "tool_calls", calls: [call(`${tag}_1`)] }, answer] },
      {
        match: `two ${tag}`,
        steps: [{ type: "tool_calls", calls: [call(`${tag}_a`), call(`${tag}_b`)] }, answer],
      },
    ]);
    const session = await request.post(`/api/widget/${CAFE}/session`, {
      headers: { origin: E2E.hostPageOrigin },
    });
    const { token } = (await session.json()) as { token: string };

    const plain = await chat(request, token, `plain ${tag}`);
    expect(
      plain
        .filter((e) => e.event === "delta")
        .map((e) => e.data.text)
        .join(""),
    ).toBe(`Hello from ${d.name}.`);
    expect(plain.at(-1)?.event).toBe("done");

    const one = await chat(request, token, `one ${tag}`);
    expect(one.filter((e) => e.event === "chip").map((e) => e.data.state)).toEqual(["start", "done"]);
    expect(
      one
        .filter((e) => e.event === "delta")
        .map((e) => e.data.text)
        .join(""),
    ).toBe("Open: true.");
    expect(one.at(-1)?.event).toBe("done");

    const two = await chat(request, token, `two ${tag}`);
    const chips = two.filter((e) => e.event === "chip").map((e) => `${e.data.callId}:${e.data.state}`);
    expect(chips.sort()).toEqual([`${tag}_a:done`, `${tag}_a:start`, `${tag}_b:done`, `${tag}_b:start`]);
    expect(two.at(-1)?.event).toBe("done");

    const toolIds = (await model.requests()).flatMap((r) =>
      r.body.messages.filter((m) => m.role === "tool").map((m) => m.tool_call_id),
    );
    // Each follow-up carries the tool results of its own round: one id, then both.
    expect(new Set(toolIds)).toEqual(new Set([`${tag}_1`, `${tag}_a`, `${tag}_b`]));
  });
}
