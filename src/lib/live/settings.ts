import "server-only";
import { z } from "zod";
import { assertRole, auditedTx, type TenantContext } from "../auth/access";
import { writeLiveSettings } from "../db/queries/live-presence";
import type { LiveHours, SavedReply } from "../db/schema";
import { AppError } from "../errors";
import { assignWaiting, wakeAssigned } from "./transition";

// The business's live chat settings (Inbox → Live chat → Settings): how many conversations one agent holds
// at most, after how many minutes an unclaimed visitor is escalated, the opening hours and the saved replies.

const TIME = /^([01]\d|2[0-3]):[0-5]\d$/;
const SAVED_MAX = 30;

export const liveSettingsSchema = z.object({
  maxPerAgent: z.coerce.number().int("A whole number.").min(1, "At least 1.").max(20, "At most 20."),
  escalateAfterMin: z.coerce
    .number()
    .int("A whole number.")
    .min(1, "At least 1 minute.")
    .max(240, "At most 240 minutes."),
  timeZone: z.string().trim().max(64).default(""),
  open: z.string().trim().default(""),
  close: z.string().trim().default(""),
  days: z.union([z.string(), z.array(z.string())]).optional(),
  savedReplies: z.string().max(20_000, "The saved replies are too long.").default(""),
});

/** "Title | text" per line; lines without a bar take their first words as the title. */
function parseSaved(text: string): SavedReply[] {
  return text
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean)
    .slice(0, SAVED_MAX)
    .map((line) => {
      const bar = line.indexOf("|");
      const title = (bar > 0 ? line.slice(0, bar) : line).trim().slice(0, 60);
      return { title, text: (bar > 0 ? line.slice(bar + 1) : line).trim() };
    })
    .filter((r) => r.text);
}

function parseHours(input: z.infer<typeof liveSettingsSchema>): LiveHours | null {
  const days = [input.days ?? []]
    .flat()
    .map(Number)
    .filter((d) => Number.isInteger(d) && d >= 0 && d <= 6);
  if (!input.timeZone && !input.open && !input.close && days.length === 0) return null;
  const fieldErrors: Record<string, string[]> = {};
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: input.timeZone || "invalid/zone" });
  } catch {
    fieldErrors.timeZone = ["A time zone such as Europe/Madrid."];
  }
  if (!TIME.test(input.open)) fieldErrors.open = ["A time such as 09:00."];
  if (!TIME.test(input.close) || input.close <= input.open)
    fieldErrors.close = ["A time after the opening time."];
  if (days.length === 0) fieldErrors.days = ["Pick at least one day."];
  if (Object.keys(fieldErrors).length)
    throw new AppError("invalid_input", "Please check the opening hours.", { fieldErrors });
  return {
    timeZone: input.timeZone,
    days: Object.fromEntries(days.map((d) => [d, { open: input.open, close: input.close }])),
  };
}

export async function updateLiveSettings(
  ctx: TenantContext,
  input: z.infer<typeof liveSettingsSchema>,
): Promise<void> {
  assertRole(ctx, "admin");
  const hours = parseHours(input);
  const savedReplies = parseSaved(input.savedReplies);
  const assigned = await auditedTx(ctx, async (tx, record) => {
    await writeLiveSettings(tx, ctx.tenant.id, {
      maxPerAgent: input.maxPerAgent,
      escalateAfterMin: input.escalateAfterMin,
      hours,
      savedReplies,
    });
    await record("live.settings_changed", {
      details: {
        maxPerAgent: input.maxPerAgent,
        escalateAfterMin: input.escalateAfterMin,
        hours: hours !== null,
      },
    });
    // A higher per-agent limit is room for visitors waiting unassigned.
    return assignWaiting(tx, ctx.tenant.id, record);
  });
  wakeAssigned(ctx.tenant.id, assigned);
}
