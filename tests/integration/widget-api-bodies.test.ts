import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { POST as chatPost } from "@/app/api/widget/[key]/chat/route";
import { type ChatWorld, errorOf, PLATFORM, SITE, startChatWorld } from "../support/chat-world";
import { lazyBody } from "../support/lazy-body";

// Issue 13, finding 5: the chat body is capped while it streams, and the limits come before the body.

let w: ChatWorld;
let shop: Awaited<ReturnType<ChatWorld["tenant"]>>;

beforeAll(async () => {
  w = await startChatWorld();
  shop = await w.tenant({ siteDomains: ["shop.example"] });
});
afterAll(() => w?.close());
beforeEach(() => w.fake.reset());

const params = (key: string) => ({ params: Promise.resolve({ key }) });

const endlessBody = (total: number) => lazyBody(total, 16 * 1024);

function streamedChat(key: string, token: string, body: ReadableStream<Uint8Array>) {
  const headers = new Headers({ "content-type": "application/json", origin: SITE });
  headers.set("authorization", `Bearer ${token}`);
  const req = new Request(`${PLATFORM}/api/widget/${key}/chat`, {
    method: "POST",
    headers,
    body,
    duplex: "half",
  } as RequestInit);
  return chatPost(req, params(key));
}

describe("request bodies", () => {
  it("413 at the first byte over 16 KB of a chunked body, without reading the rest", async () => {
    const token = await w.token(shop.widgetKey);
    const big = endlessBody(200 * 1024 * 1024);
    const res = await streamedChat(shop.widgetKey, token, big.stream);
    expect(res.status).toBe(413);
    expect((await errorOf(res)).code).toBe("payload_too_large");
    // The cap plus the chunk that crossed it (and one the stream may have queued ahead), not 200 MB.
    expect(big.pulled()).toBeLessThanOrEqual(64 * 1024);
    expect(w.fake.requests).toHaveLength(0);
  });

  it("413 at once when Content-Length already says too much", async () => {
    const token = await w.token(shop.widgetKey);
    const req = w.chatRequest(shop.widgetKey, { message: "x".repeat(20_000) }, { token });
    const res = await chatPost(req, params(shop.widgetKey));
    expect(res.status).toBe(413);
  });

  it("counts oversized requests against the visitor's limit: 30 on one token end in 429", async () => {
    const t = await w.tenant({ rateLimits: { visitorPerMin: 5 } });
    const token = await w.token(t.widgetKey);
    const statuses: number[] = [];
    for (let i = 0; i < 30; i++) {
      const res = await streamedChat(t.widgetKey, token, endlessBody(1024 * 1024).stream);
      statuses.push(res.status);
    }
    expect(statuses.slice(0, 5)).toEqual([413, 413, 413, 413, 413]);
    expect(new Set(statuses.slice(5))).toEqual(new Set([429]));
  });
});
