import { describe, expect, it } from "vitest";
import { addDays, dayIn, formatDate, formatDateTime, isTimeZone, startOfDayIn } from "@/shared/dates";

// The admin's one date format, in the business's time zone (issue 30 item 11).

describe("admin dates in the business's time zone", () => {
  const at = new Date("2025-03-30T00:30:00Z");

  it("shows the same moment as the day and time of each zone, naming the zone", () => {
    expect(formatDateTime(at, { tz: "UTC" })).toBe("30 Mar 2025, 00:30 UTC");
    expect(formatDateTime(at, { tz: "America/New_York" })).toBe("29 Mar 2025, 20:30 GMT-4");
    expect(formatDate(at, "America/New_York")).toBe("29 Mar 2025");
    expect(formatDateTime(at, { tz: "Europe/Madrid", seconds: true })).toBe("30 Mar 2025, 01:30:00 CET");
  });

  it("falls back to UTC for a zone it does not know", () => {
    expect(isTimeZone("Mars/Olympus")).toBe(false);
    expect(isTimeZone("Europe/Madrid")).toBe(true);
    expect(formatDateTime(at, { tz: "Mars/Olympus" })).toBe("30 Mar 2025, 00:30 UTC");
  });

  it("finds where a day starts across DST changes", () => {
    // Madrid moved its clocks forward at 02:00 on 30 March 2025: that day began at +1, the next at +2.
    expect(startOfDayIn("2025-03-30", "Europe/Madrid").toISOString()).toBe("2025-03-29T23:00:00.000Z");
    expect(startOfDayIn("2025-03-31", "Europe/Madrid").toISOString()).toBe("2025-03-30T22:00:00.000Z");
    // New York moved back on 2 November 2025: that day began in EDT, the next in EST.
    expect(startOfDayIn("2025-11-02", "America/New_York").toISOString()).toBe("2025-11-02T04:00:00.000Z");
    expect(startOfDayIn("2025-11-03", "America/New_York").toISOString()).toBe("2025-11-03T05:00:00.000Z");
    expect(dayIn(new Date("2025-11-03T04:59:00Z"), "America/New_York")).toBe("2025-11-02");
    expect(addDays("2024-02-28", 1)).toBe("2024-02-29");
  });
});
