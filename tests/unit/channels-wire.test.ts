import { describe, expect, it } from "vitest";
import { channelBase, retryAfterSeconds, sameSecret } from "@/lib/channels/wire";

// The shared door of both API clients: where a token may be sent, how long a provider asked us to wait, and
// how a shared secret is compared.

describe("channelBase", () => {
  it("allows the channel's own https origin, with or without a trailing slash", () => {
    expect(channelBase("https://graph.facebook.com/v23.0/", "graph.facebook.com", [])).toBe(
      "https://graph.facebook.com/v23.0",
    );
    expect(channelBase("https://api.telegram.org", "api.telegram.org", [])).toBe("https://api.telegram.org");
  });

  it("refuses look-alike hosts, http, another port, and loopback unless the allowlist names host and port", () => {
    for (const base of [
      "https://graph.facebook.com.evil.example/v23.0",
      "https://evil.example/graph.facebook.com",
      "http://graph.facebook.com/v23.0",
      "https://graph.facebook.com:8443/v23.0",
      "https://localhost:4443/v23.0",
    ]) {
      expect(() => channelBase(base, "graph.facebook.com", []), base).toThrow(/may only call/);
    }
    expect(() =>
      channelBase("https://localhost:4443/v23.0", "graph.facebook.com", ["localhost:4444"]),
    ).toThrow();
    expect(channelBase("https://localhost:4443/v23.0", "graph.facebook.com", ["localhost:4443"])).toBe(
      "https://localhost:4443/v23.0",
    );
  });
});

describe("retryAfterSeconds", () => {
  it("reads seconds and HTTP dates, and nothing else", () => {
    const now = Date.parse("2026-12-02T10:00:00Z");
    expect(retryAfterSeconds("17", now)).toBe(17);
    expect(retryAfterSeconds("1.2", now)).toBe(2);
    expect(retryAfterSeconds("Wed, 02 Dec 2026 10:00:30 GMT", now)).toBe(30);
    expect(retryAfterSeconds("Wed, 02 Dec 2026 09:00:00 GMT", now)).toBe(0);
    expect(retryAfterSeconds(null, now)).toBeNull();
    expect(retryAfterSeconds("soon", now)).toBeNull();
    expect(retryAfterSeconds("-5", now)).toBeNull();
  });
});

describe("sameSecret", () => {
  it("is true only for the identical non-empty secret", () => {
    expect(sameSecret("abc", "abc")).toBe(true);
    expect(sameSecret("abc", "abd")).toBe(false);
    expect(sameSecret("abc", "abcd")).toBe(false);
    expect(sameSecret("", "")).toBe(false);
    expect(sameSecret(undefined, "abc")).toBe(false);
    expect(sameSecret(null, "abc")).toBe(false);
  });
});
