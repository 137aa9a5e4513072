import { afterEach, describe, expect, it, vi } from "vitest";
import { createLogger } from "@/lib/log";
import { configSchema } from "@/lib/tools/config";
import { findPack } from "@/lib/tools/index";
import {
  exceptionLineProblem,
  instantOf,
  openingStatusAt,
  parseOpeningHours,
  weeklyLineProblem,
} from "@/lib/tools/opening-hours";
import { definitionFor, runToolCall } from "@/lib/tools/runtime";

// The opening-hours grid answers what a customer at the door would see: in the business's own zone, across
// midnight, holidays and daylight-saving changes.

const WEEK = ["Mon-Fri 09:00-12:00, 13:00-18:00", "Sat 10:00-14:00", "Sun closed"];
const at = (iso: string) => Date.parse(iso);

describe("the weekly grid", () => {
  const hours = parseOpeningHours(WEEK, [
    "2026-12-25 closed Christmas",
    "2026-12-24 10:00-13:00 Christmas Eve",
  ]);

  it("is open inside a range and says when it closes, in the business's zone", () => {
    // Tuesday 2026-12-08 10:30 in Tokyo is 01:30 UTC.
    const s = openingStatusAt(hours, "Asia/Tokyo", at("2026-12-08T01:30:00Z"));
    expect(s).toMatchObject({
      open: true,
      nextChange: "2026-12-08T12:00:00+09:00",
      today: "09:00-12:00, 13:00-18:00",
    });
  });

  it("is closed at lunch and reopens the same day", () => {
    const s = openingStatusAt(hours, "Asia/Tokyo", at("2026-12-08T03:30:00Z")); // 12:30 Tokyo
    expect(s).toMatchObject({ open: false, nextChange: "2026-12-08T13:00:00+09:00" });
  });

  it("answers for the business's date, not the server's, across a date line", () => {
    // Saturday 2026-12-12 23:30 UTC is already Sunday 08:30 in Tokyo: closed, opens Monday 09:00.
    const s = openingStatusAt(hours, "Asia/Tokyo", at("2026-12-12T23:30:00Z"));
    expect(s).toMatchObject({ open: false, today: "closed", nextChange: "2026-12-14T09:00:00+09:00" });
    // The same instant in New York is Saturday 18:30: closed since 14:00, opens Monday.
    const ny = openingStatusAt(hours, "America/New_York", at("2026-12-12T23:30:00Z"));
    expect(ny).toMatchObject({ open: false, today: "10:00-14:00", nextChange: "2026-12-14T09:00:00-05:00" });
  });

  it("keeps a holiday closed with its note, and a short day short", () => {
    const xmas = openingStatusAt(hours, "Europe/Paris", at("2026-12-25T10:00:00Z")); // Friday 11:00
    expect(xmas).toMatchObject({
      open: false,
      today: "closed",
      note: "Christmas",
      nextChange: "2026-12-26T10:00:00+01:00",
    });
    const eve = openingStatusAt(hours, "Europe/Paris", at("2026-12-24T11:30:00Z")); // Thursday 12:30
    expect(eve).toMatchObject({ open: true, note: "Christmas Eve", nextChange: "2026-12-24T13:00:00+01:00" });
  });

  it("runs a night past midnight and merges adjacent ranges", () => {
    const bar = parseOpeningHours(["Fri-Sat 20:00-02:00", "Sun 00:00-24:00"], []);
    // Sunday 2026-12-13 01:00 Paris: Saturday's night runs into Sunday's all-day range, so open until Monday.
    const s = openingStatusAt(bar, "Europe/Paris", at("2026-12-13T00:00:00Z"));
    expect(s).toMatchObject({ open: true, nextChange: "2026-12-14T00:00:00+01:00" });
    const fri = openingStatusAt(bar, "Europe/Paris", at("2026-12-12T00:30:00Z")); // Sat 01:30, Friday's night
    expect(fri).toMatchObject({ open: true, nextChange: "2026-12-12T02:00:00+01:00" });
  });

  it("says nothing changes when closed for longer than it looks ahead", () => {
    const s = openingStatusAt(parseOpeningHours([], []), "UTC", at("2026-12-08T10:00:00Z"));
    expect(s).toEqual({ open: false, today: "closed", timeZone: "UTC" });
  });
});

describe("daylight-saving changes", () => {
  it("puts an opening time on the new offset after clocks go forward", () => {
    // Berlin: 2026-03-29 02:00 CET becomes 03:00 CEST. Sunday opening 10:00 is 08:00 UTC, not 09:00.
    expect(new Date(instantOf("2026-03-29", 600, "Europe/Berlin")).toISOString()).toBe(
      "2026-03-29T08:00:00.000Z",
    );
    const h = parseOpeningHours(["Sun 10:00-16:00"], []);
    const s = openingStatusAt(h, "Europe/Berlin", at("2026-03-29T07:30:00Z")); // 09:30 CEST
    expect(s).toMatchObject({ open: false, nextChange: "2026-03-29T10:00:00+02:00" });
  });

  it("reads a skipped wall time as the time after the jump", () => {
    // 02:30 does not exist in Berlin or New York on the spring change; both land on 03:30 local.
    expect(new Date(instantOf("2026-03-29", 150, "Europe/Berlin")).toISOString()).toBe(
      "2026-03-29T01:30:00.000Z",
    );
    expect(new Date(instantOf("2026-03-08", 150, "America/New_York")).toISOString()).toBe(
      "2026-03-08T07:30:00.000Z",
    );
  });

  it("closes a night shift at the right hour when clocks go back during it", () => {
    // New York 2026-11-01: 02:00 EDT becomes 01:00 EST. A 22:00-03:00 night lasts six hours, not five.
    const h = parseOpeningHours(["Sat 22:00-03:00"], []);
    const s = openingStatusAt(h, "America/New_York", at("2026-11-01T06:30:00Z")); // 01:30 EST
    expect(s).toMatchObject({ open: true, nextChange: "2026-11-01T03:00:00-05:00" });
    expect(
      instantOf("2026-11-01", 180, "America/New_York") - instantOf("2026-10-31", 1320, "America/New_York"),
    ).toBe(6 * 3_600_000);
  });
});

describe("what the form refuses, in words", () => {
  it.each([
    ["Monday 9-5", /not a time range/],
    ["Mon-Fri 09:00-25:00", /does not exist/],
    ["Mon 10:00-10:00", /same time/],
    ["every day 09:00-17:00", /start with a day/],
  ])("weekly line %s", (line, msg) => expect(weeklyLineProblem(line)).toMatch(msg));

  it.each([
    ["2026-02-30 closed", /does not exist/],
    ["2026-12-31..2026-12-01 closed", /ends before/],
    ["Christmas closed", /write a date/],
  ])("exception line %s", (line, msg) => expect(exceptionLineProblem(line)).toMatch(msg));

  it("accepts the examples shown in the form", () => {
    for (const line of [
      "Mon-Fri 09:00-12:00, 13:00-18:00",
      "Sat 10:00-14:00",
      "Sun closed",
      "Fri-Mon 22:00-02:00",
    ])
      expect(weeklyLineProblem(line)).toBeNull();
    for (const line of [
      "2026-12-25 closed Christmas",
      "2026-08-10..2026-08-16 closed Summer break",
      "2026-12-24 10:00-14:00",
    ])
      expect(exceptionLineProblem(line)).toBeNull();
  });

  it("names the line that is wrong when the pack is saved", () => {
    const r = configSchema(findPack("get_opening_status")!).safeParse({
      weeklyHours: "Mon-Fri 09:00-18:00\nSat 9-1",
      timeZone: "Europe/Paris",
    });
    expect(r.success).toBe(false);
    expect(JSON.stringify(r.error?.issues)).toMatch(/Line 2 .*not a time range/);
  });
});

describe("the pack from the form alone", () => {
  afterEach(() => vi.useRealTimers());

  async function run(config: Record<string, unknown>) {
    const pack = findPack("get_opening_status")!;
    const parsed = configSchema(pack).parse(config);
    const record = await runToolCall({
      call: { id: "c1", name: pack.id, arguments: "{}" },
      enabled: [{ pack, config: parsed, definition: definitionFor(pack, parsed) }],
      ctx: {
        tenantId: "t",
        conversationId: null,
        signal: new AbortController().signal,
        log: createLogger({ write: () => {} }, "silent"),
      },
      timeoutMs: 5000,
      maxChars: 4000,
    });
    return { record, body: JSON.parse(record.result) };
  }

  it("answers open now without any network, in a handful of fields", async () => {
    vi.useFakeTimers({ now: at("2026-12-08T01:30:00Z"), toFake: ["Date"] });
    const { body, record } = await run({ weeklyHours: WEEK.join("\n"), timeZone: "Asia/Tokyo" });
    expect(body).toEqual({
      open: true,
      nextChange: "2026-12-08T12:00:00+09:00",
      today: "09:00-12:00, 13:00-18:00",
      timeZone: "Asia/Tokyo",
    });
    expect(record.outcome).toBe("ok");
  });

  it("tells the model plainly when nothing was entered", async () => {
    const { body, record } = await run({ timeZone: "UTC" });
    expect(record.outcome).toBe("error");
    expect(body.error).toMatch(/not entered its opening hours/);
  });
});
