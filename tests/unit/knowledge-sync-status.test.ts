import { describe, expect, it } from "vitest";
import { idleSyncStatus } from "@/app/(admin)/admin/[tenant]/knowledge/sync-status";

// The Knowledge page's state line once a sync has ended: it must never say "Up to date" next to the red
// reason of a sync that failed.

describe("the website source's state when no sync runs", () => {
  it("says up to date only after a sync that ended cleanly", () => {
    expect(idleSyncStatus({ lastSyncAt: new Date(), lastSyncError: null })).toBe("Up to date");
  });

  it("after a failed sync, says so and that the pages indexed before still answer", () => {
    const line = idleSyncStatus({ lastSyncAt: new Date(), lastSyncError: "The site could not be read" });
    expect(line).not.toContain("Up to date");
    expect(line).toContain("still answer visitors");
  });

  it("before the first sync, says it has not synced", () => {
    expect(idleSyncStatus({ lastSyncAt: null, lastSyncError: null })).toBe("Not synced yet");
  });
});
