import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ListFilters, listConversations } from "@/lib/db/queries/insights-list";
import { createTenant } from "@/lib/db/queries/tenants";
import { freshDb, type TestDb } from "../support/db";
import { addConversation } from "./insights-fixtures";

let t: TestDb;
let a: { id: string };
let b: { id: string };
const ids: Record<string, string> = {};

const list = (tenantId: string, filters: ListFilters, cursor?: string | null, limit?: number) =>
  t.handle.forTenant(tenantId, (tx) => listConversations(tx, tenantId, filters, { cursor, limit }));

const idsOf = async (tenantId: string, filters: ListFilters) =>
  (await list(tenantId, filters, null, 100)).items.map((i) => i.id);

beforeAll(async () => {
  t = await freshDb();
  a = await createTenant(t.handle.platform, { slug: "list-a", name: "A" });
  b = await createTenant(t.handle.platform, { slug: "list-b", name: "B" });
  const q = (at: string, content: string) => ({ role: "user" as const, at, content });
  ids.answered = await addConversation(t.handle, a.id, {
    startedAt: "2025-03-01T10:00:00Z",
    messages: [
      q("2025-03-01T10:00:00Z", "Do you have oat milk for my latte?"),
      {
        role: "assistant",
        at: "2025-03-01T10:00:05Z",
        content: "Yes, we do.",
        runs: [{ packId: "get_menu" }],
      },
    ],
  });
  ids.partial = await addConversation(t.handle, a.id, {
    startedAt: "2025-03-02T10:00:00Z",
    messages: [
      q("2025-03-02T10:00:00Z", "Are you open on Sunday?"),
      {
        role: "assistant",
        at: "2025-03-02T10:00:05Z",
        status: "partial",
        reason: "model_timeout",
        runs: [{ packId: "get_opening_status" }],
      },
    ],
  });
  ids.failed = await addConversation(t.handle, a.id, {
    startedAt: "2025-03-03T10:00:00Z",
    messages: [
      q("2025-03-03T10:00:00Z", "Where are you?"),
      { role: "assistant", at: "2025-03-03T10:00:05Z", status: "failed", reason: "model_error", content: "" },
    ],
  });
  ids.rateLimited = await addConversation(t.handle, a.id, {
    startedAt: "2025-03-04T10:00:00Z",
    messages: [
      q("2025-03-04T10:00:00Z", "Menu please"),
      {
        role: "assistant",
        at: "2025-03-04T10:00:01Z",
        status: "failed",
        reason: "budget_exhausted",
        content: "",
      },
    ],
  });
  // Failed first, answered after the visitor asked again: how it ended is what counts.
  ids.recovered = await addConversation(t.handle, a.id, {
    startedAt: "2025-03-05T10:00:00Z",
    messages: [
      q("2025-03-05T10:00:00Z", "Is it going to rain?"),
      {
        role: "assistant",
        at: "2025-03-05T10:00:01Z",
        status: "failed",
        reason: "rate_limited",
        content: "",
      },
      q("2025-03-05T10:01:00Z", "Is it going to rain? (again)"),
      {
        role: "assistant",
        at: "2025-03-05T10:01:03Z",
        content: "No rain today.",
        runs: [{ packId: "get_weather" }],
      },
    ],
  });
  // Started on 5 March, still talking on 9 March.
  ids.longRunning = await addConversation(t.handle, a.id, {
    startedAt: "2025-03-05T20:00:00Z",
    messages: [
      q("2025-03-05T20:00:00Z", "Hello"),
      { role: "assistant", at: "2025-03-05T20:00:02Z" },
      q("2025-03-09T08:00:00Z", "Hello again"),
      { role: "assistant", at: "2025-03-09T08:00:02Z", runs: [{ packId: "get_menu", outcome: "error" }] },
    ],
  });
  ids.noAnswer = await addConversation(t.handle, a.id, {
    startedAt: "2025-03-10T10:00:00Z",
    messages: [q("2025-03-10T10:00:00Z", "Anyone there?")],
  });
  // Tenant B talks about oat milk too, and has a word nobody at A used.
  ids.otherTenant = await addConversation(t.handle, b.id, {
    startedAt: "2025-03-01T11:00:00Z",
    messages: [
      q("2025-03-01T11:00:00Z", "Is there oat milk in the cappuccino? zanzibar"),
      { role: "assistant", at: "2025-03-01T11:00:02Z", runs: [{ packId: "get_menu" }] },
    ],
  });
});

afterAll(() => t?.close());

describe("conversation list", () => {
  it("lists the tenant's own conversations, newest activity first, with a summary", async () => {
    const page = await list(a.id, {});
    expect(page.items.map((i) => i.id)).toEqual([
      ids.noAnswer,
      ids.longRunning,
      ids.recovered,
      ids.rateLimited,
      ids.failed,
      ids.partial,
      ids.answered,
    ]);
    const first = page.items.find((i) => i.id === ids.answered)!;
    expect(first).toMatchObject({
      outcome: "answered",
      messages: 2,
      packs: ["get_menu"],
      preview: "Do you have oat milk for my latte?",
    });
    expect(page.nextCursor).toBeNull();
  });

  it("derives the outcome from the last answer", async () => {
    const outcomes = Object.fromEntries((await list(a.id, {})).items.map((i) => [i.id, i.outcome]));
    expect(outcomes[ids.answered!]).toBe("answered");
    expect(outcomes[ids.partial!]).toBe("partial");
    expect(outcomes[ids.failed!]).toBe("failed");
    expect(outcomes[ids.rateLimited!]).toBe("rate_limited");
    expect(outcomes[ids.recovered!]).toBe("answered");
    expect(outcomes[ids.noAnswer!]).toBeNull();
  });

  it("filters by outcome", async () => {
    expect(await idsOf(a.id, { outcome: "answered" })).toEqual([
      ids.longRunning,
      ids.recovered,
      ids.answered,
    ]);
    expect(await idsOf(a.id, { outcome: "partial" })).toEqual([ids.partial]);
    expect(await idsOf(a.id, { outcome: "failed" })).toEqual([ids.failed]);
    expect(await idsOf(a.id, { outcome: "rate_limited" })).toEqual([ids.rateLimited]);
  });

  it("filters by the pack used, whatever the call's outcome", async () => {
    expect(await idsOf(a.id, { pack: "get_menu" })).toEqual([ids.longRunning, ids.answered]);
    expect(await idsOf(a.id, { pack: "get_weather" })).toEqual([ids.recovered]);
    expect(await idsOf(a.id, { pack: "check_stock" })).toEqual([]);
  });

  it("filters by a date range: conversations active on any of those days (UTC)", async () => {
    // 3..5 March: failed (3rd), rate-limited (4th), recovered and longRunning (both started on the 5th).
    expect(await idsOf(a.id, { from: "2025-03-03", to: "2025-03-05" })).toEqual([
      ids.longRunning,
      ids.recovered,
      ids.rateLimited,
      ids.failed,
    ]);
    // 7 March: only the conversation that spans 5..9 March was open.
    expect(await idsOf(a.id, { from: "2025-03-07", to: "2025-03-07" })).toEqual([ids.longRunning]);
    expect(await idsOf(a.id, { from: "2025-03-10" })).toEqual([ids.noAnswer]);
    expect(await idsOf(a.id, { to: "2025-03-01" })).toEqual([ids.answered]);
  });

  it("combines filters", async () => {
    expect(await idsOf(a.id, { pack: "get_menu", outcome: "answered", from: "2025-03-08" })).toEqual([
      ids.longRunning,
    ]);
  });
});

describe("transcript search", () => {
  it("finds a conversation by a word of any of its messages", async () => {
    expect(await idsOf(a.id, { q: "oat" })).toEqual([ids.answered]);
    expect(await idsOf(a.id, { q: "rain" })).toEqual([ids.recovered]);
    // Case does not matter; a quoted phrase, several words (all within one message), a word left out.
    expect(await idsOf(a.id, { q: "SUNDAY" })).toEqual([ids.partial]);
    expect(await idsOf(a.id, { q: '"oat milk"' })).toEqual([ids.answered]);
    expect(await idsOf(a.id, { q: '"milk oat"' })).toEqual([]);
    expect(await idsOf(a.id, { q: "hello again" })).toEqual([ids.longRunning]);
    expect(await idsOf(a.id, { q: "again -hello" })).toEqual([ids.recovered]);
  });

  it("never crosses tenants", async () => {
    expect(await idsOf(a.id, { q: "zanzibar" })).toEqual([]);
    expect(await idsOf(b.id, { q: "oat" })).toEqual([ids.otherTenant]);
    expect(await idsOf(b.id, { q: "latte" })).toEqual([]);
  });

  describe("substrings, accents and scripts without spaces", () => {
    let s: { id: string };
    const found: Record<string, string> = {};
    beforeAll(async () => {
      s = await createTenant(t.handle.platform, { slug: "list-s", name: "S" });
      const say = async (key: string, content: string) => {
        found[key] = await addConversation(t.handle, s.id, {
          startedAt: "2025-05-01T10:00:00Z",
          messages: [{ role: "user", at: "2025-05-01T10:00:00Z", content }],
        });
      };
      await say("ja", "明日の営業時間は何時から何時までですか？");
      await say("es", "¿A qué hora abrís el domingo?");
      await say("de", "Liefert ihr auch nach München?");
      await say("percent", "Is the 50% discount still on?");
    });

    it("finds Japanese text by a few characters from inside a sentence", async () => {
      expect(await idsOf(s.id, { q: "営業時間" })).toEqual([found.ja]);
      expect(await idsOf(s.id, { q: "何時まで" })).toEqual([found.ja]);
      expect(await idsOf(s.id, { q: "定休日" })).toEqual([]);
    });

    it("folds accents and case both ways", async () => {
      expect(await idsOf(s.id, { q: "abris" })).toEqual([found.es]);
      expect(await idsOf(s.id, { q: "munchen" })).toEqual([found.de]);
      expect(await idsOf(s.id, { q: "MÜNCHEN" })).toEqual([found.de]);
      expect(await idsOf(s.id, { q: "Dómingo" })).toEqual([found.es]);
    });

    it("takes % and _ literally", async () => {
      expect(await idsOf(s.id, { q: "50%" })).toEqual([found.percent]);
      expect(await idsOf(s.id, { q: "5_%" })).toEqual([]);
    });
  });

  it("searches the stored folded text, which the trigram index covers", async () => {
    const [idx] = (
      (await t.handle.platform.execute(
        sql`select indexdef from pg_indexes where indexname = 'messages_content_trgm_idx'`,
      )) as unknown as { rows: { indexdef: string }[] }
    ).rows;
    expect(idx?.indexdef).toMatch(/USING gin \(content_search gin_trgm_ops\)/);
    const folded = (
      (await t.handle.platform.execute(
        sql`select content_search from messages where content like '%München%'`,
      )) as unknown as { rows: { content_search: string }[] }
    ).rows;
    expect(folded.map((r) => r.content_search)).toEqual(["liefert ihr auch nach munchen?"]);
    // Outside RLS (the operator's tools, similarity()), the planner can reach messages through the index.
    const plan = await t.handle.platform.transaction(async (tx) => {
      await tx.execute(sql`set local enable_seqscan = off`);
      const res = (await tx.execute(
        sql`explain select id from messages where content_search like michi_search_fold('%munchen%')`,
      )) as unknown as { rows: Record<string, string>[] };
      return res.rows.map((r) => Object.values(r)[0]).join("\n");
    });
    expect(plan).toContain("messages_content_trgm_idx");
  });
});

describe("cursor pagination", () => {
  let c: { id: string };
  const expected: string[] = [];

  beforeAll(async () => {
    c = await createTenant(t.handle.platform, { slug: "list-c", name: "C" });
    // 23 conversations; groups of three share the exact same last activity, and two differ only by a
    // microsecond (a JS Date cannot tell them apart).
    for (let i = 0; i < 23; i++) {
      const at = `2025-04-01T10:${String(Math.floor(i / 3)).padStart(2, "0")}:00Z`;
      await addConversation(t.handle, c.id, { startedAt: at, lastActivityAt: at });
    }
    const micro = await addConversation(t.handle, c.id, { startedAt: "2025-04-01T11:00:00Z" });
    const micro2 = await addConversation(t.handle, c.id, { startedAt: "2025-04-01T11:00:00Z" });
    await t.handle.platform.execute(
      sql`update conversations set last_activity_at = '2025-04-01T11:00:00.000001Z' where id = ${micro}`,
    );
    await t.handle.platform.execute(
      sql`update conversations set last_activity_at = '2025-04-01T11:00:00.000002Z' where id = ${micro2}`,
    );
    const rows = (
      (await t.handle.platform.execute(
        sql`select id from conversations where tenant_id = ${c.id} order by last_activity_at desc, id desc`,
      )) as unknown as { rows: { id: string }[] }
    ).rows;
    expected.push(...rows.map((r) => r.id));
  });

  it("walks every conversation exactly once, in order, whatever the page size", async () => {
    expect(expected).toHaveLength(25);
    for (const size of [1, 4, 7, 25]) {
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const page = await list(c.id, {}, cursor, size);
        expect(page.items.length).toBeLessThanOrEqual(size);
        seen.push(...page.items.map((i) => i.id));
        cursor = page.nextCursor;
        pages++;
      } while (cursor && pages < 100);
      expect(seen).toEqual(expected);
      expect(pages).toBe(Math.ceil(25 / size));
    }
  });

  it("keeps the filters across pages", async () => {
    const first = await list(a.id, { outcome: "answered" }, null, 2);
    expect(first.items.map((i) => i.id)).toEqual([ids.longRunning, ids.recovered]);
    const second = await list(a.id, { outcome: "answered" }, first.nextCursor, 2);
    expect(second.items.map((i) => i.id)).toEqual([ids.answered]);
    expect(second.nextCursor).toBeNull();
  });

  it("treats a cursor it cannot read as the first page", async () => {
    const page = await list(c.id, {}, "not-a-cursor", 3);
    expect(page.items.map((i) => i.id)).toEqual(expected.slice(0, 3));
  });
});
