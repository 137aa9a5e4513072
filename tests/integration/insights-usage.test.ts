import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { periodWindow, usageReport } from "@/lib/db/queries/insights-usage";
import { createTenant } from "@/lib/db/queries/tenants";
import { usageMonthly } from "@/lib/db/schema";
import { freshDb, type TestDb } from "../support/db";
import { addConversation } from "./insights-fixtures";

// Every expected number below is worked out by hand from the seed, in the comments next to it.

const NOW = new Date("2025-03-15T12:00:00Z"); // 7-day window: 2025-03-09 .. 2025-03-15 (UTC)

let t: TestDb;
let a: { id: string };
let b: { id: string };

beforeAll(async () => {
  t = await freshDb();
  a = await createTenant(t.handle.platform, { slug: "usage-a", name: "A" });
  b = await createTenant(t.handle.platform, { slug: "usage-b", name: "B" });

  // A1: 10 March, one question and an answer of 100+20 tokens after two opening-status calls (ok, error).
  await addConversation(t.handle, a.id, {
    startedAt: "2025-03-10T09:00:00Z",
    messages: [
      { role: "user", at: "2025-03-10T09:00:00Z" },
      {
        role: "assistant",
        at: "2025-03-10T09:01:00Z",
        prompt: 100,
        completion: 20,
        runs: [
          { packId: "get_opening_status", outcome: "ok", durationMs: 100 },
          { packId: "get_opening_status", outcome: "error", durationMs: 300 },
        ],
      },
    ],
  });
  // A2: starts 10 March late, answered after midnight (11 March, 50+5 tokens) with two menu calls.
  await addConversation(t.handle, a.id, {
    startedAt: "2025-03-10T23:30:00Z",
    messages: [
      { role: "user", at: "2025-03-10T23:30:00Z" },
      {
        role: "assistant",
        at: "2025-03-11T00:10:00Z",
        prompt: 50,
        completion: 5,
        runs: [
          { packId: "get_menu", durationMs: 50 },
          { packId: "get_menu", durationMs: 150 },
        ],
      },
    ],
  });
  // A3: started 8 March (before the window), answered 9 March (inside it) with 10+1 tokens.
  await addConversation(t.handle, a.id, {
    startedAt: "2025-03-08T22:00:00Z",
    messages: [
      { role: "user", at: "2025-03-08T22:00:00Z" },
      { role: "assistant", at: "2025-03-09T01:00:00Z", prompt: 10, completion: 1 },
    ],
  });
  // A4: today, the answer failed with no tokens after a timed-out opening-status call.
  await addConversation(t.handle, a.id, {
    startedAt: "2025-03-15T11:00:00Z",
    messages: [
      { role: "user", at: "2025-03-15T11:00:00Z" },
      {
        role: "assistant",
        at: "2025-03-15T11:00:09Z",
        status: "failed",
        reason: "model_error",
        runs: [{ packId: "get_opening_status", outcome: "timeout", durationMs: 8000 }],
      },
    ],
  });
  // A5: 1 March, outside the 7-day window, inside the 30-day one.
  await addConversation(t.handle, a.id, {
    startedAt: "2025-03-01T10:00:00Z",
    messages: [
      { role: "user", at: "2025-03-01T10:00:00Z" },
      {
        role: "assistant",
        at: "2025-03-01T10:00:05Z",
        prompt: 1000,
        completion: 1000,
        runs: [{ packId: "get_menu", durationMs: 9999 }],
      },
    ],
  });
  // A6: tomorrow (clock skew) must not count for today's report.
  await addConversation(t.handle, a.id, {
    startedAt: "2025-03-16T00:00:00Z",
    messages: [{ role: "user", at: "2025-03-16T00:00:00Z" }],
  });
  // B: another tenant on 12 March: 900+99 tokens and a weather call.
  await addConversation(t.handle, b.id, {
    startedAt: "2025-03-12T08:00:00Z",
    messages: [
      { role: "user", at: "2025-03-12T08:00:00Z" },
      {
        role: "assistant",
        at: "2025-03-12T08:00:03Z",
        prompt: 900,
        completion: 99,
        runs: [{ packId: "get_weather", durationMs: 40 }],
      },
    ],
  });
  await t.handle.platform.insert(usageMonthly).values([
    { tenantId: a.id, month: "2025-03", promptTokens: 1000, completionTokens: 234 },
    { tenantId: a.id, month: "2025-02", promptTokens: 5000, completionTokens: 0 },
    { tenantId: b.id, month: "2025-03", promptTokens: 700, completionTokens: 77 },
  ]);
});

afterAll(() => t?.close());

const byDay = (days: { day: string }[]) => new Map(days.map((d) => [d.day, d]));

describe("usage report for one tenant", () => {
  it("counts conversations, messages and tokens per UTC day over the last 7 days", async () => {
    const r = await t.handle.forTenant(a.id, (tx) =>
      usageReport(tx, { tenantId: a.id }, { period: 7, now: NOW }),
    );
    expect(r.days.map((d) => d.day)).toEqual([
      "2025-03-09",
      "2025-03-10",
      "2025-03-11",
      "2025-03-12",
      "2025-03-13",
      "2025-03-14",
      "2025-03-15",
    ]);
    const d = byDay(r.days);
    // 9 March: A3's answer only (its conversation started on 8 March).
    expect(d.get("2025-03-09")).toMatchObject({
      conversations: 0,
      visitorMessages: 0,
      botMessages: 1,
      tokens: 11,
    });
    // 10 March: A1 and A2 start; A1's question and answer, A2's question.
    expect(d.get("2025-03-10")).toMatchObject({
      conversations: 2,
      visitorMessages: 2,
      botMessages: 1,
      messages: 3,
      promptTokens: 100,
      completionTokens: 20,
      tokens: 120,
    });
    // 11 March: A2's answer after midnight.
    expect(d.get("2025-03-11")).toMatchObject({ conversations: 0, messages: 1, tokens: 55 });
    // 12 March: only tenant B was busy.
    expect(d.get("2025-03-12")).toMatchObject({ conversations: 0, messages: 0, tokens: 0 });
    // 15 March: A4's question and failed answer.
    expect(d.get("2025-03-15")).toMatchObject({
      conversations: 1,
      visitorMessages: 1,
      botMessages: 1,
      tokens: 0,
    });
    // Totals: A1, A2, A4 started inside; 1 + 3 + 1 + 2 messages; 11 + 120 + 55 tokens; 2 + 2 + 1 tool calls.
    expect(r.totals).toEqual({ conversations: 3, messages: 7, tokens: 186, toolCalls: 5 });
  });

  it("gives tool calls per pack with failure rate and median duration", async () => {
    const r = await t.handle.forTenant(a.id, (tx) =>
      usageReport(tx, { tenantId: a.id }, { period: 7, now: NOW }),
    );
    expect(r.packs).toEqual([
      // 100 ms ok, 300 ms error, 8000 ms timeout: 2 of 3 failed, median 300.
      { packId: "get_opening_status", calls: 3, failures: 2, failureRate: 2 / 3, medianMs: 300 },
      // 50 and 150 ms: the median of an even count is their mean; the 9999 ms call of 1 March is outside.
      { packId: "get_menu", calls: 2, failures: 0, failureRate: 0, medianMs: 100 },
    ]);
  });

  it("reads this month's budget usage from usage_monthly, not from the (purgeable) messages", async () => {
    const r = await t.handle.forTenant(a.id, (tx) =>
      usageReport(tx, { tenantId: a.id }, { period: 7, now: NOW }),
    );
    expect(r.month).toEqual({ month: "2025-03", tokens: 1234, estimatedTokens: 0 });
  });

  it("widens to 30 days", async () => {
    const r = await t.handle.forTenant(a.id, (tx) =>
      usageReport(tx, { tenantId: a.id }, { period: 30, now: NOW }),
    );
    expect(r.days).toHaveLength(30);
    expect(r.days[0]?.day).toBe("2025-02-14");
    // Now A3 (8 March) and A5 (1 March) started inside too; A5 adds 2 messages and 2000 tokens, A3 its question.
    expect(r.totals).toEqual({ conversations: 5, messages: 10, tokens: 2186, toolCalls: 6 });
    expect(r.packs.find((p) => p.packId === "get_menu")).toMatchObject({ calls: 3, medianMs: 150 });
  });

  it("a tenant scope never sees another tenant's rows, even when asked for them", async () => {
    // Scoped to A by RLS while naming B: nothing of B's comes back.
    const r = await t.handle.forTenant(a.id, (tx) =>
      usageReport(tx, { tenantId: b.id }, { period: 7, now: NOW }),
    );
    expect(r.totals).toEqual({ conversations: 0, messages: 0, tokens: 0, toolCalls: 0 });
    expect(r.month.tokens).toBe(0);
  });
});

describe("usage report for the operator", () => {
  it("one tenant through the platform path gives the same numbers", async () => {
    const r = await usageReport(t.handle.platform, { tenantId: b.id }, { period: 7, now: NOW });
    expect(r.totals).toEqual({ conversations: 1, messages: 2, tokens: 999, toolCalls: 1 });
    expect(r.packs).toEqual([{ packId: "get_weather", calls: 1, failures: 0, failureRate: 0, medianMs: 40 }]);
    expect(r.month.tokens).toBe(777);
  });

  it("the platform total adds every tenant", async () => {
    const r = await usageReport(t.handle.platform, { tenantId: null }, { period: 7, now: NOW });
    expect(r.totals).toEqual({ conversations: 4, messages: 9, tokens: 1185, toolCalls: 6 });
    expect(byDay(r.days).get("2025-03-12")).toMatchObject({ conversations: 1, messages: 2, tokens: 999 });
    expect(r.month.tokens).toBe(1234 + 777);
  });
});

describe("usage report in the business's time zone", () => {
  it("counts the days in New York, where DST began on 9 March 2025", async () => {
    const r = await t.handle.forTenant(a.id, (tx) =>
      usageReport(tx, { tenantId: a.id, timeZone: "America/New_York" }, { period: 7, now: NOW }),
    );
    // 9 March began at 00:00 EST (05:00 UTC); 16 March begins at 00:00 EDT (04:00 UTC).
    expect(r.since.toISOString()).toBe("2025-03-09T05:00:00.000Z");
    expect(r.until.toISOString()).toBe("2025-03-16T04:00:00.000Z");
    expect(r.timeZone).toBe("America/New_York");
    const d = byDay(r.days);
    // A3's answer (01:00 UTC on the 9th) was still the 8th in New York: outside the window.
    expect(d.get("2025-03-09")).toMatchObject({ conversations: 0, botMessages: 0 });
    // A2's answer after UTC midnight was 20:10 on the 10th in New York: both A1 and A2 count on the 10th.
    expect(d.get("2025-03-10")).toMatchObject({
      conversations: 2,
      visitorMessages: 2,
      botMessages: 2,
      tokens: 175,
    });
    expect(d.get("2025-03-11")).toMatchObject({ botMessages: 0 });
    // A6 (00:00 UTC on the 16th) is 20:00 on the 15th there, so today has A4 and A6.
    expect(d.get("2025-03-15")).toMatchObject({ conversations: 2 });
  });
});

describe("period window", () => {
  it("is today and the days before it, in UTC", () => {
    const w = periodWindow(7, new Date("2025-03-15T23:59:59.999Z"));
    expect(w.since.toISOString()).toBe("2025-03-09T00:00:00.000Z");
    expect(w.until.toISOString()).toBe("2025-03-16T00:00:00.000Z");
  });
});
