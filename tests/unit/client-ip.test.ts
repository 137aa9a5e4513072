import { describe, expect, it } from "vitest";
import { clientIp } from "@/lib/security/client-ip";

const h = (init: Record<string, string>) => new Headers(init);

describe("the client IP used for rate limits", () => {
  it("ignores X-Forwarded-For without trusted proxies, so a client cannot pick its own bucket", () => {
    const headers = h({ "x-forwarded-for": "6.6.6.6", "x-michi-peer": "203.0.113.9" });
    expect(clientIp(headers, 0)).toBe("203.0.113.9");
  });

  it("behind N proxies, takes the address N hops from the right; earlier entries are the client's to forge", () => {
    // The client sent "6.6.6.6"; the load balancer appended the real address it saw.
    const one = h({ "x-forwarded-for": "6.6.6.6, 198.51.100.7", "x-michi-peer": "10.0.0.2" });
    expect(clientIp(one, 1)).toBe("198.51.100.7");
    const two = h({ "x-forwarded-for": "6.6.6.6, 198.51.100.7, 10.0.0.3", "x-michi-peer": "10.0.0.2" });
    expect(clientIp(two, 2)).toBe("198.51.100.7");
  });

  it("falls back to the socket address when the header is missing or not an address", () => {
    expect(clientIp(h({ "x-michi-peer": "2001:db8::1" }), 1)).toBe("2001:db8::1");
    expect(clientIp(h({ "x-forwarded-for": "not-an-ip", "x-michi-peer": "203.0.113.9" }), 1)).toBe(
      "203.0.113.9",
    );
    expect(clientIp(h({}), 0)).toBe("unknown");
  });
});
