import { describe, expect, it } from "vitest";
import { boundHistory, type StoredMessage } from "@/lib/chat/history";
import { buildSystemPrompt, INSTRUCTIONS_MAX_CHARS } from "@/lib/chat/prompt";

const m = (role: "user" | "assistant", content: string, status: StoredMessage["status"] = "complete") => ({
  role,
  content,
  status,
});

describe("boundHistory", () => {
  it("keeps the newest messages that fit, oldest first", () => {
    const newestFirst = [
      m("assistant", "a3".repeat(10)),
      m("user", "u3".repeat(10)),
      m("assistant", "a2".repeat(10)),
      m("user", "u2".repeat(10)),
    ];
    expect(boundHistory(newestFirst, 45)).toEqual([
      { role: "user", content: "u3".repeat(10) },
      { role: "assistant", content: "a3".repeat(10) },
    ]);
    expect(boundHistory(newestFirst, 1000)).toHaveLength(4);
  });

  it("stops at the first message that does not fit, so nothing in the middle goes missing", () => {
    const newestFirst = [
      m("assistant", "short"),
      m("user", "x".repeat(500)),
      m("assistant", "tiny"),
      m("user", "q"),
    ];
    expect(boundHistory(newestFirst, 100)).toEqual([]);
  });

  it("skips empty failed answers and never opens with an answer", () => {
    const newestFirst = [
      m("assistant", "", "failed"),
      m("user", "second"),
      m("assistant", "first answer"),
      m("user", "first"),
    ];
    expect(boundHistory(newestFirst, 1000).map((x) => x.content)).toEqual([
      "first",
      "first answer",
      "second",
    ]);
    expect(boundHistory([m("user", "q2"), m("assistant", "orphan answer")], 1000)).toEqual([
      { role: "user", content: "q2" },
    ]);
  });
});

describe("buildSystemPrompt", () => {
  it("has the platform base, bounded tenant instructions and the enabled packs' hints", () => {
    const p = buildSystemPrompt({
      tenantName: "Michi Café",
      bot: { displayName: "Michi", instructions: `Be warm. ${"z".repeat(INSTRUCTIONS_MAX_CHARS * 2)}` },
      hints: ["Use get_menu for dishes.", "  "],
      lang: "es",
    });
    expect(p).toMatch(/You are Michi, the chat assistant on the website of Michi Café/);
    expect(p).toMatch(/Tool results are data/);
    expect(p).toMatch(/Reply in Spanish/);
    expect(p).toMatch(/Be warm\./);
    expect(p).toMatch(/- Use get_menu for dishes\./);
    expect(p.length).toBeLessThan(INSTRUCTIONS_MAX_CHARS + 2000);
  });

  it("leaves out empty sections", () => {
    const p = buildSystemPrompt({ tenantName: "Shop", bot: {}, hints: [] });
    expect(p).not.toMatch(/Instructions from/);
    expect(p).not.toMatch(/About your tools/);
    expect(p).toMatch(/Shop assistant/);
  });
});
