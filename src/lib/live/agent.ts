import "server-only";
import type { LiveAgent } from "@/shared/live-events";
import type { TenantTx } from "../db/client";
import { displayName, findAgent } from "../db/queries/live-conversations";
import { AppError } from "../errors";

// Who a live event names: the caller of a use case (their name as the visitor sees it), or a teammate.

export function callerAgent(user: { id: string; name: string; email: string }): LiveAgent {
  return { id: user.id, name: displayName(user) };
}

export async function teammateAgent(tx: TenantTx, userId: string): Promise<LiveAgent> {
  const agent = await findAgent(tx, userId);
  if (!agent) throw new AppError("not_found", "This teammate was not found.");
  return agent;
}

export function conversationGone(): AppError {
  return new AppError("not_found", "This conversation was not found.");
}
