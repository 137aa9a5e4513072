import { describe, expect, it } from "vitest";
import { z } from "zod";
import { roleAtLeast } from "@/lib/auth/access";
import { verifiedGithubEmail } from "@/lib/auth/accounts";
import { echoValues, formToObject, parseForm } from "@/lib/auth/action";
import { claimsFrom } from "@/lib/auth/claims";
import { safeCallbackPath } from "@/lib/auth/redirect";
import { throttleMessage } from "@/lib/auth/throttle";
import { slugify } from "@/shared/slug";

describe("after sign-in, only same-site paths", () => {
  it.each([
    ["/admin/demo", "/admin/demo"],
    ["/admin/demo/tools?x=1", "/admin/demo/tools?x=1"],
    ["https://evil.example/", "/admin"],
    ["//evil.example/x", "/admin"],
    ["/\\evil.example", "/admin"],
    ["javascript:alert(1)", "/admin"],
    ["", "/admin"],
    [undefined, "/admin"],
  ])("%s → %s", (input, expected) => {
    expect(safeCallbackPath(input)).toBe(expected);
  });

  // Spellings that normalise to a protocol-relative "//host" (issue 13, finding 4), plus tabs, newlines,
  // backslashes and encoded slashes, which browsers or proxies may turn into one.
  it.each([
    "/.//evil.test",
    "/./\\evil.test",
    "/a/..//evil.test",
    "/%2e//evil.test",
    "/%2E//evil.test",
    "/.%2e//evil.test",
    "/%2e%2e//evil.test",
    "/..//evil.test",
    "/a/b/../..//evil.test",
    "/admin/../..//evil.test",
    "/././/evil.test/x?y=1",
    "/\\/evil.test",
    "/\t/evil.test",
    "/\n/evil.test",
    "/\r\n/evil.test",
    "/%2F%2Fevil.test",
    "/%2f/evil.test",
    "/%5Cevil.test",
    "/./%5c%5cevil.test",
    "/\u0000//evil.test",
  ])("refuses %j", (input) => {
    expect(safeCallbackPath(input)).toBe("/admin");
  });

  it("keeps harmless dot segments inside the site", () => {
    expect(safeCallbackPath("/admin/./demo/../demo/tools")).toBe("/admin/demo/tools");
  });
});

describe("roles", () => {
  it("orders viewer < admin < owner", () => {
    expect(roleAtLeast("owner", "admin")).toBe(true);
    expect(roleAtLeast("admin", "admin")).toBe(true);
    expect(roleAtLeast("viewer", "admin")).toBe(false);
    expect(roleAtLeast("admin", "owner")).toBe(false);
  });
});

describe("session claims", () => {
  it("accept a user uuid and an integer version only", () => {
    const uid = "6f1c8a52-2d3b-4c3e-9b1a-0c2d3e4f5a6b";
    expect(claimsFrom({ uid, sv: 3 })).toEqual({ uid, sv: 3 });
    expect(claimsFrom({ uid, sv: "3" })).toBeNull();
    expect(claimsFrom({ uid: "1 or 1=1", sv: 1 })).toBeNull();
    expect(claimsFrom({ sub: uid })).toBeNull();
    expect(claimsFrom(null)).toBeNull();
  });
});

describe("form handling", () => {
  const fd = new FormData();
  fd.set("name", "Ann");
  fd.append("tag", "a");
  fd.append("tag", "b");
  fd.set("newPassword", "hunter2hunter2");
  fd.set("apiSecret", "s3cr3t");
  fd.set("monthlyTokenBudget", "5");
  fd.set("$ACTION_ID_abc", "");

  it("reads FormData into an object, repeated names as arrays, Next's fields dropped", () => {
    expect(formToObject(fd)).toEqual({
      name: "Ann",
      tag: ["a", "b"],
      newPassword: "hunter2hunter2",
      apiSecret: "s3cr3t",
      monthlyTokenBudget: "5",
    });
  });

  it("echoes what was typed except passwords and secrets", () => {
    expect(echoValues(fd)).toEqual({ name: "Ann", tag: "a\nb", monthlyTokenBudget: "5" });
  });

  it("returns one message per field and the typed values on invalid input", () => {
    const input = new FormData();
    input.set("name", "Ann");
    input.set("age", "3.5");
    input.set("password", "hunter2hunter2");
    const r = parseForm(
      z.object({ name: z.string().min(5, "Too short"), age: z.coerce.number().int("Whole years") }),
      input,
    );
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.state.fieldErrors).toEqual({ name: "Too short", age: "Whole years" });
    expect(r.state.values).toEqual({ name: "Ann", age: "3.5" });
    expect(JSON.stringify(r.state)).not.toContain("hunter2");
  });
});

describe("slugs from business names", () => {
  it.each([
    ["Café Michi!", "cafe-michi"],
    ["  The   Best Bakery  ", "the-best-bakery"],
    ["ラーメン", "business"],
    ["---", "business"],
    ["A".repeat(80), "a".repeat(34)],
  ])("%s → %s", (name, slug) => {
    expect(slugify(name)).toBe(slug);
  });
});

describe("throttle message", () => {
  it("rounds up to whole minutes", () => {
    expect(throttleMessage(900)).toBe("Too many attempts. Try again in 15 minutes.");
    expect(throttleMessage(61)).toBe("Too many attempts. Try again in 2 minutes.");
    expect(throttleMessage(5)).toBe("Too many attempts. Try again in 1 minute.");
  });
});

describe("GitHub e-mail", () => {
  const fetchWith = (status: number, body: unknown) =>
    (async () => new Response(JSON.stringify(body), { status })) as unknown as typeof fetch;

  it("uses the primary verified address, else another verified one, never an unverified one", async () => {
    const list = [
      { email: "Unverified@Example.com", primary: true, verified: false },
      { email: "Work@Example.com", primary: false, verified: true },
    ];
    expect(await verifiedGithubEmail("tok", fetchWith(200, list))).toBe("work@example.com");
    expect(
      await verifiedGithubEmail(
        "tok",
        fetchWith(200, [...list, { email: "me@x.com", primary: true, verified: true }]),
      ),
    ).toBe("me@x.com");
    expect(await verifiedGithubEmail("tok", fetchWith(200, [list[0]]))).toBeNull();
    expect(await verifiedGithubEmail("tok", fetchWith(401, { message: "Bad credentials" }))).toBeNull();
    expect(await verifiedGithubEmail(undefined, fetchWith(200, list))).toBeNull();
  });
});
