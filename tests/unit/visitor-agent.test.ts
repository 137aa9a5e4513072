import { describe, expect, it } from "vitest";
import { encodeLiveEvent } from "@/lib/live/stream";
import type { LiveEvent } from "@/shared/live-events";
import { visitorSse } from "@/widget/server/visitor-agent";

// The visitor's copy of the live stream: every person it names loses their user id and gains an opaque
// photo address, wherever the network cut the stream's chunks; everything else passes through unchanged.

const view = {
  key: "cafe-key",
  tenantId: "0b5c1e36-54a4-4a07-9d6f-3a3e8f7f2a01",
  visitorId: "visitor-aaaaaaaaaaaa",
  authSecret: "s".repeat(40),
};
const ana = { id: "6a1d7c3e-1f0b-4c5e-8d2a-9b7f0e4c3d21", name: "Ana", avatar: "0123456789abcdef" };
const ben = { id: "7b2e8d4f-2a1c-4d6f-9e3b-0c8a1f5d4e32", name: "Ben" };
const ev = (seq: number, e: Pick<LiveEvent, "kind" | "data">) =>
  ({ seq, conversationId: "c", at: "2026-12-02T05:00:00Z", ...e }) as LiveEvent;

async function through(chunks: string[]): Promise<string> {
  const enc = new TextEncoder();
  const source = new ReadableStream<Uint8Array>({
    start(c) {
      for (const s of chunks) c.enqueue(enc.encode(s));
      c.close();
    },
  });
  return new Response(visitorSse(view, source)).text();
}

describe("the visitor's live stream", () => {
  const text =
    "retry: 1000\n\n" +
    encodeLiveEvent(ev(1, { kind: "state", data: { state: "person", agent: ana } })) +
    ": keep-alive\n\n" +
    encodeLiveEvent(ev(2, { kind: "agent_message", data: { messageId: "m", text: "Hi", agent: ben } })) +
    encodeLiveEvent(ev(3, { kind: "visitor_message", data: { messageId: "v", text: "Ana? 6a1d" } })) +
    encodeLiveEvent(ev(4, { kind: "assigned", data: { agent: ben } })) +
    'id: 4\nevent: ready\ndata: {"seq":4}\n\n';

  it("names people by name and photo address only, however the chunks were cut", async () => {
    const whole = await through([text]);
    // Cut every 7 characters: blocks split across chunks are joined before they are read.
    const cut = await through(text.match(/[\s\S]{1,7}/g) ?? []);
    expect(cut).toBe(whole);
    expect(whole).not.toContain(ana.id);
    expect(whole).not.toContain(ben.id);
    expect(whole).not.toContain(ana.avatar);
    const data = [...whole.matchAll(/^data: (.*)$/gm)].map((m) => JSON.parse(m[1]!));
    expect(data[0].data.agent).toEqual({
      name: "Ana",
      avatarUrl: expect.stringMatching(/^\/api\/widget\/cafe-key\/avatars\/[A-Za-z0-9_-]{102}$/),
    });
    expect(data[1].data.agent).toEqual({ name: "Ben" });
    // Whom a waiting visitor was given to: by name only, as everywhere.
    expect(data[3]).toMatchObject({ kind: "assigned", data: { agent: { name: "Ben" } } });
    expect(data[3].data.agent).toEqual({ name: "Ben" });
    // What names nobody is left exactly as it came.
    expect(whole.startsWith("retry: 1000\n\n")).toBe(true);
    expect(whole).toContain("\n\n: keep-alive\n\n");
    expect(whole).toContain(
      encodeLiveEvent(ev(3, { kind: "visitor_message", data: { messageId: "v", text: "Ana? 6a1d" } })),
    );
    expect(whole.endsWith('id: 4\nevent: ready\ndata: {"seq":4}\n\n')).toBe(true);
  });
});
