import { describe, expect, it } from "vitest";
import type { ChatEvent } from "@/shared/chat-events";
import type { Msg } from "@/widget/panel/messages";
import { applyEvent } from "@/widget/panel/reply-stream";
import { restoreMessages } from "@/widget/panel/restore";

// The panel's side of the figure check: the event at the end of the answer marks it with the note or, in hold
// mode, replaces the streamed text and offers the contact form; a reload shows the same.

const pending: Msg = { id: "r1", role: "assistant", text: "", chips: [], status: "pending" };
const streamed = (end: ChatEvent): Msg =>
  (
    [
      { type: "delta", data: { text: "The burger is €14.50." } },
      end,
      { type: "done", data: { conversationId: "c", messageId: "a1" } },
    ] as ChatEvent[]
  ).reduce(applyEvent, pending);

describe("the figure check in the panel", () => {
  it("mark: the answer stays and the note shows under it, after a reload too", () => {
    const live = streamed({
      type: "check",
      data: { action: "mark", note: "Please check this figure with us." },
    });
    expect([live.text, live.note, live.form, live.status]).toEqual([
      "The burger is €14.50.",
      "Please check this figure with us.",
      undefined,
      "done",
    ]);
    const restored = restoreMessages([
      { id: "u1", role: "user", content: "price?" },
      {
        id: "a1",
        role: "assistant",
        content: "The burger is €14.50.",
        note: "Please check this figure with us.",
      },
    ]).at(-1);
    expect([restored?.text, restored?.note]).toEqual([live.text, live.note]);
  });

  it("hold: the streamed answer gives way to the honest sentence and the contact form", () => {
    const live = streamed({ type: "check", data: { action: "hold", text: "I'd rather not give a figure." } });
    expect([live.text, live.form, live.note]).toEqual(["I'd rather not give a figure.", true, undefined]);
  });
});
