import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { platformPacks } from "@/lib/chat/packs";
import { runTurn, startTurn, type TurnDeps, type TurnInput, type TurnSink } from "@/lib/chat/run-turn";
import { env } from "@/lib/env";
import { isAppError } from "@/lib/errors";
import type { ChatEvent } from "@/shared/chat-events";
import { type ChatWorld, startChatWorld } from "../support/chat-world";

// A turn as a messaging channel would run it: no HTTP request, no SSE, no visitor token. The channel's own
// guard has found the tenant and the person; the turn's events are collected into one reply.

let w: ChatWorld;
let tenant: Awaited<ReturnType<ChatWorld["tenant"]>>;
let deps: TurnDeps;

/** What a channel adapter does with a turn: gather the reply's text and remember how it ended. */
function collectingSink(): TurnSink & { events: ChatEvent[]; text(): string } {
  const events: ChatEvent[] = [];
  return {
    events,
    emit: (e) => events.push(e),
    signal: new AbortController().signal,
    text: () => events.map((e) => (e.type === "delta" ? e.data.text : "")).join(""),
  };
}

const input = (over: Partial<TurnInput> = {}): TurnInput => ({
  tenant,
  visitorId: "channel:+34600000000",
  message: "When do you open tomorrow?",
  origin: "channel:test",
  pageUrl: "",
  locale: "en",
  lang: "en",
  ...over,
});

beforeAll(async () => {
  w = await startChatWorld();
  // One turn at a time: a slot a refusal kept would refuse the next turn.
  tenant = await w.tenant({ rateLimits: { maxStreams: 1 } });
  deps = { db: w.db, env: env(), packs: platformPacks };
  w.fake.setRules([
    { match: "open tomorrow", steps: [{ type: "text", text: "We open at nine.", chunkSize: 4 }] },
    { match: "and on sunday", steps: [{ type: "text", text: "Closed on Sundays." }] },
  ]);
});

afterAll(async () => {
  await w?.close();
});

describe("a chat turn through a sink that is not SSE", () => {
  let conversationId: string;

  it("streams start, the deltas and done into the sink, and stores both messages", async () => {
    const sink = collectingSink();
    const result = await runTurn(deps, input(), sink);
    expect(result?.status).toBe("complete");
    expect(sink.text()).toBe("We open at nine.");
    const [first, ...rest] = sink.events;
    expect(first?.type).toBe("start");
    const done = rest.at(-1);
    expect(done?.type).toBe("done");
    if (first?.type !== "start" || done?.type !== "done") return;
    conversationId = first.data.conversationId;
    expect(done.data.conversationId).toBe(conversationId);
    expect(rest.slice(0, -1).every((e) => e.type === "delta")).toBe(true);

    const rows = await w.rows(tenant.id);
    expect(rows.conversations).toHaveLength(1);
    expect(rows.conversations[0]).toMatchObject({
      visitorId: "channel:+34600000000",
      origin: "channel:test",
    });
    expect(rows.messages.map((m) => [m.id, m.role, m.content, m.status])).toEqual([
      [first.data.visitorMessageId, "user", "When do you open tomorrow?", "complete"],
      [done.data.messageId, "assistant", "We open at nine.", "complete"],
    ]);
  });

  it("continues the person's conversation: the model sees the earlier turn", async () => {
    w.fake.requests.length = 0;
    const sink = collectingSink();
    await runTurn(deps, input({ conversationId, message: "And on Sunday?" }), sink);
    expect(sink.text()).toBe("Closed on Sundays.");
    const sent = w.fake.requests.at(-1)?.body.messages.map((m) => m.content);
    expect(sent?.slice(1)).toEqual(["When do you open tomorrow?", "We open at nine.", "And on Sunday?"]);
  });

  it("refuses someone else's conversation before anything is stored or streamed, and frees the slot", async () => {
    const before = (await w.rows(tenant.id)).messages.length;
    const err = await startTurn(deps, input({ conversationId, visitorId: "channel:+34699999999" })).catch(
      (e: unknown) => e,
    );
    expect(isAppError(err) && err.code).toBe("not_found");
    expect((await w.rows(tenant.id)).messages).toHaveLength(before);
    // maxStreams is 1: a slot the refusal kept would refuse this turn.
    const sink = collectingSink();
    await runTurn(deps, input({ visitorId: "channel:+34699999999" }), sink);
    expect(sink.events.at(-1)?.type).toBe("done");
  });

  it("holds the tenant's stream slot from opening to the end of the run", async () => {
    const opened = await startTurn(deps, input());
    const err = await startTurn(deps, input({ visitorId: "channel:+34611111111" })).catch((e: unknown) => e);
    expect(isAppError(err) && err.code).toBe("rate_limited");
    await opened.run(collectingSink());
    const sink = collectingSink();
    await runTurn(deps, input({ visitorId: "channel:+34611111111" }), sink);
    expect(sink.events.at(-1)?.type).toBe("done");
  });
});
