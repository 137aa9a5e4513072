import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { createLogger } from "@/lib/log";
import { REDACTED, redactSecretPaths, SECRET_ROUTES } from "../../src/lib/secret-paths.mjs";

// The one redaction every log line that can carry a URL goes through (scripts/serve.mjs, src/lib/log.ts).
const TOKEN = "q7Vd2mXcK0pL9sTb4nWy8eRf1gHj6uIo3aZx5cVb7nM";

describe("secret routes in log lines", () => {
  it("are the reset and invitation pages", () => {
    expect([...SECRET_ROUTES].sort()).toEqual(["/invite", "/signin/reset"]);
  });

  // The red-team corpus of docs/security.md ("Secrets in logs"): every way a token reached a line.
  const LEAKS = [
    `/signin/reset/${TOKEN}`,
    `/invite/${TOKEN}`,
    `/invite/${TOKEN}/`,
    `/invite/${TOKEN}?x=1`,
    `https://michi.example/signin/reset#${TOKEN}`,
    `https://michi.example/invite#${TOKEN}\n`,
    `/signin?callbackUrl=%2Finvite%2F${TOKEN}`,
    `/signin?callbackUrl=%2Finvite%23${TOKEN}`,
    `/invite/${TOKEN}%E0%A4%A`,
    `/invite/${TOKEN.slice(0, 20)}%2${TOKEN.slice(20)}`,
    `URIError: Failed to decode param '/invite/${TOKEN}%'`,
    `{"route":"/signin/reset/${TOKEN}","status":303}`,
    `GET /SIGNIN/RESET/${TOKEN}`,
    `GET /Invite/${TOKEN}`,
  ];
  for (const line of LEAKS)
    it(`keep no token in ${JSON.stringify(line.slice(0, 60))}`, () => {
      const out = redactSecretPaths(line);
      expect(out).not.toContain(TOKEN.slice(0, 12));
      expect(out).toContain(REDACTED);
    });

  it("leave other paths alone", () => {
    for (const line of ["/invite", "/invitees/x", "/admin/shop/team", "/signin/forgot", "/signin?reset=1"])
      expect(redactSecretPaths(line)).toBe(line);
  });

  it("are redacted in whatever the platform's logger writes, message and fields alike", () => {
    let written = "";
    const sink = new Writable({
      write(chunk, _enc, done) {
        written += String(chunk);
        done();
      },
    });
    const logger = createLogger(sink, "info");
    logger.error(
      { url: `/invite/${TOKEN}`, err: { message: `no page /signin/reset/${TOKEN}` } },
      `at /invite#${TOKEN}`,
    );
    expect(written).toContain(REDACTED);
    expect(written).not.toContain(TOKEN.slice(0, 12));
  });
});
