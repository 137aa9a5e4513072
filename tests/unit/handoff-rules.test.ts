import { describe, expect, it } from "vitest";
import { groupRows, stems, suggestPack } from "@/lib/insights/unanswered";
import { ALL_PACKS, findPack } from "@/lib/tools/index";
import { contactProblems, normaliseContact } from "@/shared/contact";
import { HANDOFF_STRINGS } from "@/shared/handoff-words";

// The pure rules behind the hand-off form and the unanswered-questions report.

const form = (over: Record<string, unknown>) =>
  normaliseContact({ message: "Please call", consent: true, ...over });

describe("the contact form's rules (panel and server alike)", () => {
  it("needs an e-mail or a phone, a message and consent", () => {
    expect(contactProblems(form({}))).toEqual({ email: "reach_needed" });
    expect(contactProblems(form({ email: "a@b.co", message: "  " }))).toEqual({ message: "message_needed" });
    expect(contactProblems(form({ email: "a@b.co", consent: false }))).toEqual({ consent: "consent_needed" });
    expect(contactProblems(form({ email: "a@b.co", consent: false }), false)).toEqual({});
    expect(contactProblems(form({ phone: "+34 600 000 000" }))).toEqual({});
  });

  it("checks the shape of e-mail addresses and phone numbers", () => {
    for (const bad of ["a@b", "a b@c.de", "@c.de", "a@@c.de", "a@c..de"])
      expect(contactProblems(form({ email: bad })).email, bad).toBe("email_invalid");
    for (const ok of ["ana@example.org", "a.b+tag@sub.example.co.jp"])
      expect(contactProblems(form({ email: ok })), ok).toEqual({});
    for (const bad of ["12345", "call me", "+1 555 01x0", "1".repeat(41)])
      expect(contactProblems(form({ phone: bad })).phone, bad).toBe("phone_invalid");
    expect(contactProblems(form({ phone: "(03) 1234-5678" }))).toEqual({});
  });

  it("trims, drops NUL and caps lengths", () => {
    const c = normaliseContact({ name: "  Ana\u0000 ", email: " a@b.co ", message: "hi", consent: "yes" });
    expect(c).toEqual({ name: "Ana", email: "a@b.co", phone: "", message: "hi", consent: false });
    expect(contactProblems(form({ email: "a@b.co", name: "n".repeat(101) })).name).toBe("too_long");
    expect(contactProblems(form({ email: "a@b.co", message: "m".repeat(2001) })).message).toBe("too_long");
  });

  it("words every problem in every language", () => {
    for (const strings of Object.values(HANDOFF_STRINGS))
      for (const text of Object.values(strings.problems)) expect(text.trim()).not.toBe("");
  });
});

describe("the unanswered report's grouping and suggestions", () => {
  it("joins pairs transitively and keeps rows in order", () => {
    expect(
      groupRows(
        ["a", "b", "c", "d", "e"],
        [
          [3, 4],
          [0, 2],
          [2, 4],
        ],
      ),
    ).toEqual([["a", "c", "d", "e"], ["b"]]);
    expect(groupRows(["x"], [])).toEqual([["x"]]);
  });

  it("stems words so that 'open', 'opens' and 'opening' meet, and leaves out filler words", () => {
    expect([...stems("Are you OPEN on Sunday? Opening hours, it opens")]).toEqual(["open", "sunda", "hour"]);
  });

  it("names the switched-off pack whose own words match the question, or none", () => {
    const off = ALL_PACKS.filter((p) => p.id !== "get_weather");
    expect(suggestPack(["Will it rain tomorrow? What's the weather?"], ALL_PACKS)?.packId).toBe(
      "get_weather",
    );
    expect(suggestPack(["Will it rain tomorrow? What's the weather?"], off)?.packId).not.toBe("get_weather");
    expect(suggestPack(["Is the matcha latte in stock?"], [findPack("check_stock")!])?.packId).toBe(
      "check_stock",
    );
    expect(suggestPack(["xyzzy plugh"], ALL_PACKS)).toBeNull();
  });
});
