import "server-only";
import type { MessageStatus } from "../db/schema";

export type StoredMessage = { role: "user" | "assistant"; content: string; status: MessageStatus };
export type HistoryMessage = { role: "user" | "assistant"; content: string };

/**
 * Earlier messages to re-send, oldest first, within `maxChars`. Tool calls and results of earlier turns are
 * never re-sent: they served that turn, and the answer that used them is in the history already.
 * `newestFirst` is the conversation read newest first; the walk stops at the first message that does not fit,
 * so the history is always a contiguous tail of the conversation.
 */
export function boundHistory(newestFirst: readonly StoredMessage[], maxChars: number): HistoryMessage[] {
  const kept: HistoryMessage[] = [];
  let used = 0;
  for (const m of newestFirst) {
    const content = m.content.trim();
    if (!content) continue; // failed answers have no text
    if (used + content.length > maxChars) break;
    used += content.length;
    kept.push({ role: m.role, content });
  }
  kept.reverse();
  // A history that opens with an answer has lost its question; drop it rather than confuse the model.
  while (kept[0]?.role === "assistant") kept.shift();
  return kept;
}
