import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POST } from "@/app/api/widget/[key]/chat/route";
import { type ChatWorld, readEvents, type SseEvent, startChatWorld, textOf } from "../support/chat-world";

// The stream's first event names the conversation and the stored visitor message, and the widget's Retry
// answers that stored message again instead of storing the question twice.

let w: ChatWorld;
let tenant: Awaited<ReturnType<ChatWorld["tenant"]>>;
let other: Awaited<ReturnType<ChatWorld["tenant"]>>;

beforeAll(async () => {
  w = await startChatWorld();
  tenant = await w.tenant();
  other = await w.tenant();
});

afterAll(async () => {
  await w?.close();
});

const call = (key: string, body: unknown, token: string) =>
  POST(w.chatRequest(key, body, { token }), { params: Promise.resolve({ key }) });

const startOf = (events: SseEvent[]) => {
  expect(events[0]?.event).toBe("start");
  return events[0]!.data as { conversationId: string; visitorMessageId: string };
};

const errorCode = async (res: Response) => ((await res.json()) as { error: { code: string } }).error.code;

describe("the first event and Retry", () => {
  let token: string;
  let failed: { conversationId: string; visitorMessageId: string };

  it("opens every stream with the conversation and the stored visitor message, even when the model fails", async () => {
    w.fake.setRules([{ match: "flaky", steps: [{ type: "http_error", status: 400 }] }]);
    token = await w.token(tenant.widgetKey);
    const events = await readEvents(await call(tenant.widgetKey, { message: "a flaky question" }, token));
    failed = startOf(events);
    expect(events.at(-1)?.event).toBe("error");

    const rows = await w.rows(tenant.id);
    expect(rows.conversations.map((c) => c.id)).toEqual([failed.conversationId]);
    const user = rows.messages.find((m) => m.role === "user");
    expect(user).toMatchObject({ id: failed.visitorMessageId, content: "a flaky question" });
  });

  it("a retry answers the stored message again: one visitor message, the failed attempt not in the history", async () => {
    w.fake.setRules([{ match: "flaky", steps: [{ type: "text", text: "Fine now." }] }]);
    const before = w.fake.requests.length;
    const events = await readEvents(
      await call(
        tenant.widgetKey,
        { conversationId: failed.conversationId, retryOf: failed.visitorMessageId },
        token,
      ),
    );
    expect(startOf(events)).toEqual(failed);
    expect(textOf(events)).toBe("Fine now.");
    expect(events.at(-1)).toMatchObject({ event: "done", data: { conversationId: failed.conversationId } });

    // The model got the stored words once, as the question of this turn.
    const sent = w.fake.requests[before]!.body.messages;
    expect(sent.map((m) => [m.role, m.content])).toEqual([
      ["system", expect.any(String)],
      ["user", "a flaky question"],
    ]);
    const rows = await w.rows(tenant.id);
    expect(rows.messages.map((m) => [m.role, m.status, m.content])).toEqual([
      ["user", "complete", "a flaky question"],
      ["assistant", "failed", ""],
      ["assistant", "complete", "Fine now."],
    ]);
  });

  it("refuses to retry a message that has its answer", async () => {
    const res = await call(
      tenant.widgetKey,
      { conversationId: failed.conversationId, retryOf: failed.visitorMessageId },
      token,
    );
    expect(res.status).toBe(409);
    expect((await w.rows(tenant.id)).messages).toHaveLength(3);
  });

  it("refuses a message id of another visitor, another conversation, another tenant, or an older message", async () => {
    w.fake.setRules([{ match: "flaky", steps: [{ type: "http_error", status: 400 }] }]);
    // A fresh failed turn whose message would qualify for its own visitor.
    const mine = startOf(
      await readEvents(
        await call(
          tenant.widgetKey,
          { conversationId: failed.conversationId, message: "flaky again" },
          token,
        ),
      ),
    );
    const count = (await w.rows(tenant.id)).messages.length;

    // Another visitor of the same tenant, naming the first visitor's conversation and message.
    const stranger = await w.token(tenant.widgetKey);
    const foreign = await call(
      tenant.widgetKey,
      { conversationId: mine.conversationId, retryOf: mine.visitorMessageId },
      stranger,
    );
    expect(foreign.status).toBe(404);

    // The same visitor, naming that message from another conversation of their own.
    const own = startOf(
      await readEvents(await call(tenant.widgetKey, { message: "flaky elsewhere" }, token)),
    );
    const elsewhere = await call(
      tenant.widgetKey,
      { conversationId: own.conversationId, retryOf: mine.visitorMessageId },
      token,
    );
    expect(elsewhere.status).toBe(404);

    // A visitor of another tenant.
    const otherToken = await w.token(other.widgetKey);
    const cross = await call(
      other.widgetKey,
      { conversationId: mine.conversationId, retryOf: mine.visitorMessageId },
      otherToken,
    );
    expect(cross.status).toBe(404);

    // An older message of the conversation: its answer would come out of order.
    const older = await call(
      tenant.widgetKey,
      { conversationId: mine.conversationId, retryOf: failed.visitorMessageId },
      token,
    );
    expect(older.status).toBe(404);
    expect(await errorCode(older)).toBe("not_found");

    // A retry must name its conversation.
    const bare = await call(tenant.widgetKey, { retryOf: mine.visitorMessageId }, token);
    expect(bare.status).toBe(400);

    // Nothing was stored by the refusals (the "flaky elsewhere" turn stored its own two rows).
    expect((await w.rows(tenant.id)).messages).toHaveLength(count + 2);
    expect((await w.rows(other.id)).messages).toHaveLength(0);
  });
});
