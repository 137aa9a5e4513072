import "server-only";
import { isIP } from "node:net";

/**
 * The client's IP. X-Forwarded-For is trusted only for as many hops as MICHI_TRUST_PROXY says sit in front of
 * us: with N proxies, the client is the N-th address from the right. Without proxies the header is ignored,
 * since anybody can send it. `peer` is the socket address, when the runtime exposes it.
 */
export function clientIp(headers: Headers, trustProxy: number, peer?: string | null): string {
  if (trustProxy > 0) {
    const hops = (headers.get("x-forwarded-for") ?? "")
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean);
    const candidate = hops[hops.length - trustProxy];
    if (candidate && isIP(candidate)) return candidate;
  }
  // Next's standalone server does not hand the socket to route handlers; it records the peer in this header,
  // overwriting whatever the client sent.
  const real = peer ?? headers.get("x-michi-peer");
  return real && isIP(real) ? real : "unknown";
}
