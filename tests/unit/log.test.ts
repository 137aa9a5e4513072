import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { createLogger } from "@/lib/log";

function capture() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { logger: createLogger(stream, "info"), lines };
}

describe("log redaction", () => {
  it("never writes passwords, tokens, authorization headers or pack config values", () => {
    const { logger, lines } = capture();
    logger.info(
      {
        password: "hunter2-password",
        user: { email: "a@b.c", password: "nested-password" },
        token: "visitor-token-value",
        headers: { authorization: "Bearer abc.def.ghi", cookie: "next-auth.session-token=xyz" },
        req: { headers: { authorization: "Bearer second" } },
        config: { apiKey: "sk-live-123", baseUrl: "https://shop.example.com" },
        secrets: { apiKey: { ct: "ciphertext" } },
        tenantId: "t-1",
      },
      "something happened",
    );
    const out = lines.join("");
    for (const secret of [
      "hunter2-password",
      "nested-password",
      "visitor-token-value",
      "abc.def.ghi",
      "session-token=xyz",
      "Bearer second",
      "sk-live-123",
      "ciphertext",
    ]) {
      expect(out).not.toContain(secret);
    }
    // What is not sensitive still reaches the log, so the log stays useful.
    expect(out).toContain("a@b.c");
    expect(out).toContain('"tenantId":"t-1"');
    expect(out).toContain("[redacted]");
  });
});
