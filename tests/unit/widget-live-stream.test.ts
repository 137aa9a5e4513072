import { afterEach, describe, expect, it, vi } from "vitest";
import { encodeLiveEvent } from "@/lib/live/stream";
import type { LiveEvent } from "@/shared/live-events";
import { subscribeLive } from "@/widget/panel/live-stream";

// The panel's live reader (src/widget/panel/live-stream.ts) against a scripted server: it resumes after the
// last seq it showed, shows each event once, renews a refused token, stops when the conversation is gone.

const CONV = "11111111-1111-4111-8111-111111111111";
const enc = new TextEncoder();

const agentSays = (seq: number, text: string): LiveEvent => ({
  seq,
  conversationId: CONV,
  kind: "agent_message",
  data: { messageId: `m${seq}`, text, agent: { id: "a", name: "Ana" } },
  at: "2026-12-02T00:00:00.000Z",
});

/** A response with these SSE chunks; `hold` keeps it open (until the request is aborted), else it ends. */
function sse(chunks: string[], signal: AbortSignal | undefined, hold = false): Response {
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      for (const ch of chunks) c.enqueue(enc.encode(ch));
      if (!hold) c.close();
      else signal?.addEventListener("abort", () => c.error(new DOMException("aborted", "AbortError")));
    },
  });
  return new Response(body, { headers: { "content-type": "text/event-stream" } });
}

type Call = { url: string; auth: string | null };
function script(answers: ((signal?: AbortSignal) => Response)[]) {
  const calls: Call[] = [];
  vi.stubGlobal("fetch", async (url: string, init: RequestInit) => {
    calls.push({ url, auth: new Headers(init.headers).get("authorization") });
    const next = answers[calls.length - 1];
    if (!next) return new Promise<Response>(() => {});
    return next(init.signal ?? undefined);
  });
  return calls;
}

afterEach(() => vi.unstubAllGlobals());

describe("the panel's live stream", () => {
  it("resumes after the last seq it showed and shows nothing twice", async () => {
    const calls = script([
      (s) =>
        sse(
          [encodeLiveEvent(agentSays(1, "Hi, Ana here")), encodeLiveEvent(agentSays(2, "Let me check"))],
          s,
        ),
      // The server replays from the cursor it was given; an event at or below it must not show again.
      (s) =>
        sse(
          [
            encodeLiveEvent(agentSays(2, "Let me check")),
            encodeLiveEvent(agentSays(3, "Found it")),
            ": keep-alive\n\n",
          ],
          s,
          true,
        ),
    ]);
    const got: string[] = [];
    const stop = subscribeLive(CONV, (e) => got.push(`${e.seq}:${(e.data as { text: string }).text}`), {
      base: "/api/widget/wk_test",
      token: async () => "tok",
    });
    await vi.waitFor(() => expect(got).toHaveLength(3), { timeout: 5000 });
    expect(got).toEqual(["1:Hi, Ana here", "2:Let me check", "3:Found it"]);
    expect(calls.map((c) => new URL(c.url, "http://x").searchParams.get("lastEventId"))).toEqual(["0", "2"]);
    expect(calls[0]!.url).toContain(`/api/widget/wk_test/conversations/${CONV}/events`);
    expect(calls[0]!.auth).toBe("Bearer tok");
    stop();
  });

  it("drops what a visitor must not see and what it cannot read", async () => {
    const note = {
      ...agentSays(1, "x"),
      kind: "note",
      data: { text: "internal", author: { id: "a", name: "Ana" } },
    };
    const assigned = (seq: number, agent: unknown) => ({
      ...agentSays(seq, "x"),
      kind: "assigned",
      data: { agent },
    });
    script([
      (s) =>
        sse(
          [
            `id: 1\nevent: note\ndata: ${JSON.stringify(note)}\n\n`,
            "id: 2\nevent: agent_message\ndata: {not json\n\n",
            encodeLiveEvent(agentSays(3, "visible")),
            // Whom the visitor waits for reaches them; an assignment naming nobody does not.
            `id: 4\nevent: assigned\ndata: ${JSON.stringify(assigned(4, { name: "Ben" }))}\n\n`,
            `id: 5\nevent: assigned\ndata: ${JSON.stringify(assigned(5, {}))}\n\n`,
          ],
          s,
          true,
        ),
    ]);
    const got: number[] = [];
    const stop = subscribeLive(CONV, (e) => got.push(e.seq), { base: "/b", token: async () => "t" });
    await vi.waitFor(() => expect(got).toEqual([3, 4]));
    stop();
  });

  it("renews a refused token at once, and stops for a conversation that is gone", async () => {
    const json = (status: number) => () => Response.json({ error: { code: "x", message: "x" } }, { status });
    const calls = script([json(401), json(404)]);
    const forced: boolean[] = [];
    subscribeLive(CONV, () => {}, {
      base: "/b",
      token: async (force) => {
        forced.push(Boolean(force));
        return force ? "fresh" : "stale";
      },
    });
    await vi.waitFor(() => expect(calls).toHaveLength(2));
    expect(forced).toEqual([false, true]);
    expect(calls.map((c) => c.auth)).toEqual(["Bearer stale", "Bearer fresh"]);
  });
});
