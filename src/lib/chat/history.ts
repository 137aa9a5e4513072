import "server-only";
import type { MessageRole, MessageStatus } from "../db/schema";

export type StoredMessage = { role: MessageRole; content: string; status: MessageStatus };
export type HistoryMessage = { role: "user" | "assistant"; content: string };

/**
 * What the model reads before a person's message in its history: a person of the business wrote it, so the
 * model knows the person already handled that part and does not offer a person again for it.
 */
export const PERSON_MARK =
  "[Written by a person from the business who took over this conversation, not by you. Do not offer a person again for what they handled.]\n";

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
    const text = m.content.trim();
    if (!text) continue; // failed answers have no text
    const content = m.role === "agent" ? PERSON_MARK + text : text;
    if (used + content.length > maxChars) break;
    used += content.length;
    kept.push({ role: m.role === "user" ? "user" : "assistant", content });
  }
  kept.reverse();
  // A history that opens with an answer has lost its question; drop it rather than confuse the model.
  while (kept[0]?.role === "assistant") kept.shift();
  return kept;
}
