import { describe, expect, it } from "vitest";
import { EnvError, parseEnv } from "@/lib/env";

const key = Buffer.alloc(32, 7).toString("base64");
const dev = () => ({ secretKey: key, authSecret: "x".repeat(40) });

function problems(source: Record<string, string>, secrets = dev): string[] {
  try {
    parseEnv(source, secrets);
  } catch (e) {
    if (e instanceof EnvError) return e.problems;
    throw e;
  }
  return [];
}

describe("environment", () => {
  it("lists every bad variable in one error", () => {
    const found = problems({
      DATABASE_URL: "not-a-url",
      MICHI_SECRET_KEY: "c2hvcnQ=",
      MICHI_MAX_TOOL_ROUNDS: "99",
    });
    expect(found).toHaveLength(3);
    expect(found.join("\n")).toMatch(/DATABASE_URL: must be a postgres/);
    expect(found.join("\n")).toMatch(/MICHI_SECRET_KEY: must be 32 bytes/);
    expect(found.join("\n")).toMatch(/MICHI_MAX_TOOL_ROUNDS: must be a whole number from 1 to 10/);
  });

  it("generates secrets in development and requires them in production", () => {
    const e = parseEnv({ NODE_ENV: "development" }, dev);
    expect(e.MICHI_SECRET_KEY).toBe(key);
    expect(e.MICHI_PUBLIC_URL).toBe("http://localhost:3000");
    expect(e.MICHI_ALLOW_SIGNUP).toBe(true);
    const found = problems({ NODE_ENV: "production" });
    expect(found.join("\n")).toMatch(/MICHI_SECRET_KEY: required in production/);
    expect(found.join("\n")).toMatch(/MICHI_AUTH_SECRET: required in production/);
    expect(found.join("\n")).toMatch(/MICHI_PUBLIC_URL: required in production/);
  });

  it("applies defaults and parses lists and numbers", () => {
    const e = parseEnv(
      {
        MICHI_FETCH_ALLOW_HOSTS: "a.test, b.test,,",
        MICHI_TOOL_RESULT_MAX_CHARS: "5000",
        MICHI_PUBLIC_URL: "https://chat.example.com/",
      },
      dev,
    );
    expect(e.MICHI_FETCH_ALLOW_HOSTS).toEqual(["a.test", "b.test"]);
    expect(e.MICHI_TOOL_RESULT_MAX_CHARS).toBe(5000);
    expect(e.MICHI_MAX_TOOL_ROUNDS).toBe(4);
    expect(e.MICHI_PUBLIC_URL).toBe("https://chat.example.com");
  });

  it("has the demo tenant on in development, off in production unless MICHI_DEMO asks for it", () => {
    const prod = { NODE_ENV: "production", MICHI_SECRET_KEY: key, MICHI_AUTH_SECRET: "x".repeat(40) };
    const https = { MICHI_PUBLIC_URL: "https://chat.example.com" };
    expect(parseEnv({ NODE_ENV: "development" }, dev).MICHI_DEMO).toBe(true);
    expect(parseEnv({ NODE_ENV: "development", MICHI_DEMO: "false" }, dev).MICHI_DEMO).toBe(false);
    expect(parseEnv({ ...prod, ...https }).MICHI_DEMO).toBe(false);
    expect(parseEnv({ ...prod, ...https, MICHI_DEMO: "true" }).MICHI_DEMO).toBe(true);
    expect(problems({ MICHI_DEMO: "maybe" }).join()).toMatch(/MICHI_DEMO/);
  });

  it("reads the mail settings: an SMTP URL, a sender (derived from the public URL when unset), the Outbox", () => {
    const prod = { NODE_ENV: "production", MICHI_SECRET_KEY: key, MICHI_AUTH_SECRET: "x".repeat(40) };
    const https = { MICHI_PUBLIC_URL: "https://chat.example.com" };
    const d = parseEnv({ NODE_ENV: "development" }, dev);
    expect(d.MICHI_SMTP_URL).toBeUndefined();
    expect(d.MICHI_MAIL_OUTBOX).toBe(true);
    expect(d.MICHI_MAIL_FROM).toBe("michi-chat <no-reply@localhost>");
    const p = parseEnv({ ...prod, ...https, MICHI_SMTP_URL: "smtps://u:p@mail.example.com:465" });
    expect(p.MICHI_SMTP_URL).toBe("smtps://u:p@mail.example.com:465");
    expect(p.MICHI_MAIL_FROM).toBe("michi-chat <no-reply@chat.example.com>");
    expect(p.MICHI_MAIL_OUTBOX).toBe(false);
    expect(parseEnv({ ...prod, ...https, MICHI_MAIL_OUTBOX: "true" }).MICHI_MAIL_OUTBOX).toBe(true);
    expect(parseEnv({ MICHI_MAIL_FROM: "Café Michi <hi@cafe.test>" }, dev).MICHI_MAIL_FROM).toBe(
      "Café Michi <hi@cafe.test>",
    );
    const bad = problems({ MICHI_SMTP_URL: "http://mail.example.com", MICHI_MAIL_FROM: "nobody" }).join();
    expect(bad).toMatch(/MICHI_SMTP_URL/);
    expect(bad).toMatch(/MICHI_MAIL_FROM/);
  });

  it("rejects a public URL with a path", () => {
    expect(problems({ MICHI_PUBLIC_URL: "https://x.example/chat" }).join()).toMatch(/MICHI_PUBLIC_URL/);
  });
});
