// A conversation as the panel shows it: the visitor's messages and the replies, with what each reply needs
// for its chips, its error, its Retry and its rating.
import type { ChipState, ConfirmCard } from "@/shared/chat-events";
import type { Citation } from "@/shared/citations";
import type { VisitorAgent } from "@/shared/live-events";
import type { PanelConfig } from "../public-config";
import { codeMessage } from "../wording";

export type Chip = { id: string; label: string; state: ChipState };
export type Msg = {
  id: string;
  /** 'agent': a person of the business wrote it, in a live conversation (issue #28). */
  role: "user" | "assistant" | "agent";
  text: string;
  /** For an agent's message: who wrote it (their name, and the address of their photo when they have one). */
  agent?: VisitorAgent;
  chips: Chip[];
  status: "pending" | "done" | "error";
  /** Why a reply failed: a server code (worded by the panel in its language) or "offline". */
  error?: string;
  /** For a reply: the visitor's words it answers, so Retry can send them again if they were never stored. */
  prompt?: string;
  /** For a reply: the stored visitor message it answers (from the stream's first event); Retry reuses it. */
  question?: string;
  /** For a reply: the stored answer's id, which the visitor's rating names. */
  serverId?: string;
  /** For a reply: the assistant offered a person (request_human), so the contact form shows under it. */
  form?: boolean;
  /** For a reply: the bot did not answer, a person has the conversation (their words come live). */
  live?: boolean;
  /** For a reply: the indexed pages it cited, as the server checked them (never URLs from its text). */
  sources?: Citation[];
  /** For a reply: an action waits for the visitor's Confirm (its card shows under the reply until decided). */
  confirm?: ConfirmCard;
  /** For a reply: the figure check's note (a figure none of the business's sources states). */
  note?: string;
  /** For a reply: the visitor's own rating of it, as stored (restored after a reload). */
  rating?: "up" | "down";
};

/** The abort reason of the Stop button, told apart from a reset or the panel going away. */
export const STOP = "stop";

/** The visitor-facing words for a reply's error code, always in the panel's language. */
export function errorText(cfg: Pick<PanelConfig, "t">, code: string | undefined): string {
  return code === "offline" ? cfg.t.offline : codeMessage(cfg.t, code ?? "error");
}

let seq = 0;
export const nextId = () => `m${++seq}`;
