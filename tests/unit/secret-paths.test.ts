import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { createLogger } from "@/lib/log";
import { REDACTED, redactSecretPaths, SECRET_ROUTES } from "../../src/lib/secret-paths.mjs";

// The one redaction every log line that can carry a URL goes through (scripts/serve.mjs, src/lib/log.ts).
const TOKEN = "q7Vd2mXcK0pL9sTb4nWy8eRf1gHj6uIo3aZx5cVb7nM";

describe("secret routes in log lines", () => {
  it("are the reset, sign-up confirmation and invitation pages and the channel webhooks", () => {
    expect([...SECRET_ROUTES].sort()).toEqual([
      "/api/channels/*",
      "/invite",
      "/signin/reset",
      "/signup/confirm",
    ]);
  });

  // The red-team corpus of docs/security.md ("Secrets in logs"): every way a token reached a line.
  const LEAKS = [
    `/signin/reset/${TOKEN}`,
    `/invite/${TOKEN}`,
    `/invite/${TOKEN}/`,
    `/invite/${TOKEN}?x=1`,
    `https://michi.example/signin/reset#${TOKEN}`,
    `https://michi.example/invite#${TOKEN}\n`,
    `https://michi.example/signup/confirm#${TOKEN}`,
    `/signup/confirm/${TOKEN}`,
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

  // Issue #44: each of these reached the page (or a redirect to it) while the token stayed in the access log.
  // The router decodes escapes, reads `\\` as `/`, collapses `//`, drops `;params` and resolves `.` and `..`.
  const SPELLINGS = [
    `/signin//reset/${TOKEN}`,
    `/signin/reset//${TOKEN}`,
    `/invite//${TOKEN}`,
    `/signin/reset\\${TOKEN}`,
    `/signin/reset;a=b/${TOKEN}`,
    `/signin/%72eset/${TOKEN}`,
    `/%73ignin/reset/${TOKEN}`,
    // More of the same kind.
    `/%73%69%67%6E%69%6E/%72%65%73%65%74/${TOKEN}`,
    `/%73%69%67%6e%69%6e/reset/${TOKEN}`,
    `/%69nvite/${TOKEN}`,
    `/invit%65/${TOKEN}`,
    `//invite///${TOKEN}`,
    `/signin/./reset/./${TOKEN}`,
    `/signin/x/../reset/${TOKEN}`,
    `/invite/.//${TOKEN}`,
    `/invite%2F${TOKEN}`,
    `/invite%2f%2f${TOKEN}`,
    `/signin%5Creset%5C${TOKEN}`,
    `\\signin\\reset\\${TOKEN}`,
    `/invite;jsessionid=1/${TOKEN}`,
    `/invite/${TOKEN};x=1`,
    `/signin;x/reset;y/${TOKEN}`,
    `/invite/%2E/${TOKEN}`,
    `/invite/%2e%2e/invite/${TOKEN}`,
    `/%2569nvite/${TOKEN}`,
    `/Signin//Reset\\${TOKEN}`,
    `{"route":"/signin//reset/${TOKEN}","status":307}`,
    `GET /signin/%72eset;a=b//${TOKEN} 307`,
    `/signin?callbackUrl=%2Fsignin%2F%2Freset%2F${TOKEN}`,
  ];
  for (const line of SPELLINGS)
    it(`keep no token in the router's spelling ${JSON.stringify(line.slice(0, 50))}`, () => {
      const out = redactSecretPaths(line);
      expect(out).not.toContain(TOKEN.slice(0, 12));
      expect(out).toContain(REDACTED);
    });

  it("redact the channel webhooks' path key however it is spelled, and keep the channel", () => {
    const key = "wk_3f9a1c7e5b2d4f6a8c0e1b3d5f7a9c2e";
    for (const p of [
      `/api/channels/telegram/${key}`,
      `/api/channels/telegram/${key}?hub.mode=subscribe`,
      `/api//channels/telegram//${key}`,
      `/api/%63hannels/telegram/${key}`,
      `/api\\channels\\telegram\\${key}`,
      `{"route":"/api/channels/telegram/${key}","status":200}`,
    ]) {
      const out = redactSecretPaths(p);
      expect(out, p).not.toContain(key.slice(0, 12));
      expect(out, p).toContain(`/api/channels/telegram/${REDACTED}`);
    }
  });

  it("leave other paths alone", () => {
    for (const line of [
      "/invite",
      "/invitees/x",
      "/admin/shop/team",
      "/signin/forgot",
      "/signin?reset=1",
      "/api/channels",
      "/api/channels/telegram",
      `/invite/${REDACTED}`,
    ])
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
