import { describe, expect, it } from "vitest";
import { applyEvent } from "@/widget/panel/reply-stream";
import { restoreMessages } from "@/widget/panel/restore";
import { toEvent } from "@/widget/panel/sse";

// The panel's side of a person taking over (issue #28): the chat stream's `live` event, a bot answer cut off
// by the takeover, and a conversation with a person's messages shown again after a reload.

describe("a person has the conversation", () => {
  it("reads the chat stream's live event, and nothing else by that name", () => {
    expect(toEvent("live", '{"conversationId":"c1"}')).toEqual({
      type: "live",
      data: { conversationId: "c1" },
    });
    expect(toEvent("live", "{}")).toBeNull();
  });

  it("drops the start of a bot answer a takeover superseded", () => {
    const pending = { id: "r", role: "assistant" as const, text: "", chips: [], status: "pending" as const };
    const streamed = [
      { type: "delta", data: { text: "Yes, within" } },
      { type: "live", data: { conversationId: "c" } },
    ] as const;
    const reply = streamed.reduce(applyEvent, pending);
    expect([reply.text, reply.status, reply.live]).toEqual(["", "done", true]);
  });

  it("restores a person's messages with their name, and offers no Retry while a person has it", () => {
    const stored = [
      { id: "u1", role: "user", content: "Cake?" },
      { id: "a1", role: "assistant", content: "We bake cakes." },
      { id: "u2", role: "user", content: "Chocolate?" },
      { id: "p1", role: "agent", content: "Yes, **chocolate**.", agent: { name: "Ana" } },
      { id: "u3", role: "user", content: "Saturday?" },
    ];
    const out = restoreMessages(stored, true);
    expect(out.map((m) => [m.role, m.text, m.agent?.name ?? null, m.serverId ?? null])).toEqual([
      ["user", "Cake?", null, null],
      ["assistant", "We bake cakes.", null, "a1"],
      ["user", "Chocolate?", null, null],
      ["agent", "Yes, **chocolate**.", "Ana", "p1"],
      ["user", "Saturday?", null, null],
    ]);
    // Back with the bot, the newest unanswered question can be asked again.
    expect(restoreMessages(stored, false).at(-1)).toMatchObject({ status: "error", question: "u3" });
  });
});
