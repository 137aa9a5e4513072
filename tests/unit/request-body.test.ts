import { describe, expect, it } from "vitest";
import { POST as nextAuthPost } from "@/app/api/auth/[...nextauth]/route";
import { withCappedBody } from "@/lib/auth/capped-request";
import { isAppError } from "@/lib/errors";
import { readCappedText } from "@/lib/security/body";
import { lazyBody } from "../support/lazy-body";

// Bodies are counted while they stream: a chunked upload has no Content-Length to check up front.

const post = (body: BodyInit, headers: Record<string, string> = {}) =>
  new Request("http://localhost:3999/x", { method: "POST", body, headers, duplex: "half" } as RequestInit);

async function refusal(p: Promise<unknown>) {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  return isAppError(err) ? { code: err.code, status: err.status } : err;
}

describe("readCappedText", () => {
  it("returns a body up to the cap, multi-byte characters intact", async () => {
    expect(await readCappedText(post("héllo ✓"), 64)).toBe("héllo ✓");
    expect(await readCappedText(post("x".repeat(64)), 64)).toBe("x".repeat(64));
  });

  it("refuses a chunked body at the first chunk over the cap and stops reading", async () => {
    const body = lazyBody(100 * 1024 * 1024);
    expect(await refusal(readCappedText(post(body.stream), 16 * 1024))).toEqual({
      code: "payload_too_large",
      status: 413,
    });
    expect(body.pulled()).toBeLessThanOrEqual(32 * 1024);
  });

  it("refuses at once when the declared length is over the cap", async () => {
    const body = lazyBody(1024 * 1024);
    const req = post(body.stream, { "content-length": String(1024 * 1024) });
    expect(await refusal(readCappedText(req, 1024))).toMatchObject({ status: 413 });
    expect(body.pulled()).toBeLessThanOrEqual(8 * 1024);
  });

  it("gives handlers that read the body themselves a capped copy", async () => {
    const copy = await withCappedBody(post("a=1&b=2", { "content-type": "text/plain" }), 64);
    expect(await copy.text()).toBe("a=1&b=2");
    expect(copy.headers.get("content-type")).toBe("text/plain");
    // next-auth reads the query through nextUrl.
    expect(copy.nextUrl.pathname).toBe("/x");
  });
});

describe("next-auth's endpoints", () => {
  it("answer 413 to an oversized chunked POST before next-auth reads it", async () => {
    const body = lazyBody(50 * 1024 * 1024);
    const req = new Request("http://localhost:3999/api/auth/signout", {
      method: "POST",
      body: body.stream,
      headers: { "content-type": "application/x-www-form-urlencoded" },
      duplex: "half",
    } as RequestInit);
    const res = await nextAuthPost(req, { params: Promise.resolve({ nextauth: ["signout"] }) });
    expect(res.status).toBe(413);
    expect(body.pulled()).toBeLessThanOrEqual(32 * 1024);
  });
});
