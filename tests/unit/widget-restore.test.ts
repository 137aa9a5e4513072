import { describe, expect, it } from "vitest";
import { applyEvent } from "@/widget/panel/reply-stream";
import { restoreMessages } from "@/widget/panel/restore";

// What the panel shows again after a reload, from GET /api/widget/KEY/conversations/ID.

const shape = (ms: ReturnType<typeof restoreMessages>) =>
  ms.map((m) => [m.role, m.text, m.status, m.error ?? null, m.question ?? null, m.prompt ?? null]);

describe("restoreMessages", () => {
  it("keeps answers with their chips, settled as done or failed", () => {
    const out = restoreMessages([
      { id: "u1", role: "user", content: "open?" },
      {
        id: "a1",
        role: "assistant",
        content: "Yes.",
        chips: [{ label: "Checking", state: "done" }, { label: "Menu", state: "error" }, { state: "done" }],
      },
    ]);
    expect(shape(out)).toEqual([
      ["user", "open?", "done", null, null, null],
      ["assistant", "Yes.", "done", null, null, null],
    ]);
    expect(out[1]?.chips.map((c) => [c.label, c.state])).toEqual([
      ["Checking", "done"],
      ["Menu", "error"],
    ]);
  });

  it("shows a failed last answer as an error whose Retry answers the stored question by id", () => {
    const out = restoreMessages([
      { id: "u1", role: "user", content: "hello" },
      { id: "a1", role: "assistant", content: "Hi." },
      { id: "u2", role: "user", content: "and now?" },
      { id: "a2", role: "assistant", content: "", status: "failed", reason: "model_busy" },
    ]);
    expect(shape(out).at(-1)).toEqual(["assistant", "", "error", "model_busy", "u2", "and now?"]);
    expect(out).toHaveLength(4);
  });

  it("keeps what a cut answer had, and offers Retry for a question with no answer stored at all", () => {
    const cut = restoreMessages([
      { id: "u1", role: "user", content: "tell me" },
      { id: "a1", role: "assistant", content: "Half of", status: "partial", reason: "disconnected" },
    ]);
    expect(shape(cut).at(-1)).toEqual(["assistant", "Half of", "error", "disconnected", "u1", "tell me"]);
    const none = restoreMessages([{ id: "u1", role: "user", content: "anyone?" }]);
    expect(shape(none).at(-1)).toEqual(["assistant", "", "error", "interrupted", "u1", "anyone?"]);
  });

  it("offers Retry only for the newest question (the server refuses older ones)", () => {
    const out = restoreMessages([
      { id: "u1", role: "user", content: "first" },
      { id: "a1", role: "assistant", content: "Par", status: "partial", reason: "length" },
      { id: "u2", role: "user", content: "second" },
      { id: "a2", role: "assistant", content: "Done." },
    ]);
    expect(out[1]?.status).toBe("error");
    expect(out[1]?.prompt).toBeUndefined();
    expect(out.at(-1)?.status).toBe("done");
  });
  it("keeps the checked sources of an answer, and drops a source that is not an https page", () => {
    const out = restoreMessages([
      { id: "u1", role: "user", content: "returns?" },
      {
        id: "a1",
        role: "assistant",
        content: "Within 30 days [1][2].",
        citations: [
          { n: 1, title: "Returns", url: "https://shop.example/returns" },
          { n: 2, title: "Trap", url: "javascript:alert(1)" },
        ],
      },
    ]);
    expect(out[1]?.sources).toEqual([{ n: 1, title: "Returns", url: "https://shop.example/returns" }]);
    expect(restoreMessages([{ role: "assistant", content: "Hi." }])[0]?.sources).toBeUndefined();
  });
});

describe("a reply while its answer streams", () => {
  it("keeps the stored id of an answer that failed part-way, as the same answer restored after a reload", () => {
    const pending = { id: "r", role: "assistant" as const, text: "", chips: [], status: "pending" as const };
    const streamed = [
      { type: "delta", data: { text: "We open" } },
      {
        type: "error",
        data: { code: "interrupted", message: "Cut off", conversationId: "c", messageId: "a1" },
      },
    ] as const;
    const live = streamed.reduce(applyEvent, pending);
    const restored = restoreMessages([
      { id: "u1", role: "user", content: "open?" },
      { id: "a1", role: "assistant", content: "We open", status: "partial", reason: "interrupted" },
    ]).at(-1);
    expect([live.text, live.status, live.error, live.serverId]).toEqual([
      "We open",
      "error",
      "interrupted",
      "a1",
    ]);
    expect([restored?.text, restored?.status, restored?.error, restored?.serverId]).toEqual([
      live.text,
      live.status,
      live.error,
      live.serverId,
    ]);
  });
});
