// Next's own matcher check (the proxy config keeps the middleware format).
import { unstable_doesMiddlewareMatch } from "next/experimental/testing/server";
import { NextRequest } from "next/server";
import { describe, expect, it } from "vitest";
import { adminCsp } from "@/lib/security/csp";
import { config, proxy } from "@/proxy";

// The proxy gives each admin page view a fresh script nonce, on the request (where Next reads it to mark its
// own scripts) and on the response (where the browser enforces it).

const nonceOf = (csp: string | null) => /'nonce-([^']+)'/.exec(csp ?? "")?.[1];

describe("the admin pages' script policy", () => {
  it("puts the same fresh nonce on the request Next renders and on the response", () => {
    const one = proxy(new NextRequest("http://localhost:3000/admin/demo"));
    const two = proxy(new NextRequest("http://localhost:3000/admin/demo"));
    const sent = one.headers.get("content-security-policy");
    expect(sent).toMatch(/^script-src 'self' 'nonce-[A-Za-z0-9+/=]{24}' 'strict-dynamic'; object-src 'none'/);
    expect(one.headers.get("x-middleware-request-content-security-policy")).toBe(sent);
    expect(nonceOf(sent)).not.toBe(nonceOf(two.headers.get("content-security-policy")));
  });

  it("allows eval only in development", () => {
    expect(adminCsp("n")).not.toContain("unsafe-eval");
    expect(adminCsp("n", { dev: true })).toContain("'unsafe-eval'");
    expect(adminCsp("n")).toContain("frame-ancestors 'none'");
  });

  it("runs on admin and sign-in page views, never on requests with a body or on the widget", () => {
    const matches = (url: string, headers: Record<string, string> = {}) =>
      unstable_doesMiddlewareMatch({ config, url, headers });
    expect(matches("/admin")).toBe(true);
    expect(matches("/admin/demo/tools")).toBe(true);
    expect(matches("/signin?callbackUrl=/admin")).toBe(true);
    expect(matches("/signup")).toBe(true);
    expect(matches("/admin/demo/bot", { "content-type": "multipart/form-data; boundary=x" })).toBe(false);
    expect(matches("/admin/demo/bot", { "next-action": "abc" })).toBe(false);
    expect(matches("/api/widget/wk_1/chat")).toBe(false);
    expect(matches("/w/wk_1")).toBe(false);
    expect(matches("/widget.js")).toBe(false);
    expect(matches("/administrator")).toBe(false);
  });
});
