import { describe, expect, it } from "vitest";
import { normalisePhone, seedOf } from "@/lib/privacy/identify";
import { ERASED_KEEP_SEC, isErasedVisitor, withErasedVisitors } from "@/lib/security/erased-visitors";

// How an owner's handle becomes what the stores hold, and how long an erased visitor's token stays refused.

const T = "6f1c7d1e-0000-4000-8000-000000000001";

describe("a phone number as the channels store it", () => {
  it("keeps the digits with the country code, whatever the owner typed", () => {
    for (const typed of ["+49 151 2345678", "0049 151 2345678", "+49 (151) 234-5678", "49 151 2345678"])
      expect(normalisePhone(typed)).toBe("491512345678");
  });
});

describe("the handle", () => {
  it("finds a conversation by its admin link as well as by its id", () => {
    const id = "0b9e2f7a-1c3d-4e5f-8a9b-0c1d2e3f4a5b";
    expect(
      seedOf({ by: "conversation", value: `https://chat.example/admin/cafe/conversations/${id}` }, T),
    ).toEqual({ conversationId: id });
  });
  it("refuses what cannot name anybody, on the field", () => {
    expect(() => seedOf({ by: "email", value: "not an address" }, T)).toThrow("Enter an e-mail address.");
    expect(() => seedOf({ by: "phone", value: "12" }, T)).toThrow("Enter a phone number.");
    expect(() => seedOf({ by: "conversation", value: "yesterday's chat" }, T)).toThrow("link");
  });
  it("matches e-mail addresses without regard to case", () => {
    expect(seedOf({ by: "email", value: "Ana@Example.COM" }, T)).toEqual({ email: "ana@example.com" });
  });
});

describe("an erased visitor's token", () => {
  const now = new Date("2026-12-06T03:00:00Z");
  it("is refused until no token of theirs could still be valid or renewed, then forgotten", () => {
    const list = withErasedVisitors([], T, ["visitor-abcdefghijklmnop"], now);
    expect(isErasedVisitor(list, T, "visitor-abcdefghijklmnop", now)).toBe(true);
    expect(isErasedVisitor(list, T, "someone-else-abcdefgh", now)).toBe(false);
    // The same id at another business is another person.
    expect(
      isErasedVisitor(list, "6f1c7d1e-0000-4000-8000-000000000002", "visitor-abcdefghijklmnop", now),
    ).toBe(false);
    const later = new Date(now.getTime() + (ERASED_KEEP_SEC + 1) * 1000);
    expect(isErasedVisitor(list, T, "visitor-abcdefghijklmnop", later)).toBe(false);
    expect(withErasedVisitors(list, T, ["another-visitor-abcdef"], later)).toHaveLength(1);
    // The list keeps hashes, never the ids themselves.
    expect(JSON.stringify(list)).not.toContain("visitor-abcdefghijklmnop");
  });
});
