import "server-only";
import type { LiveAgent } from "@/shared/live-events";
import type { TenantTx } from "../db/client";
import { displayName, findAgent } from "../db/queries/live-conversations";
import { AppError } from "../errors";

// Who a live event names: the caller of a use case (their name as the visitor sees it, and their photo's
// version, read in the change's own transaction so the event names the photo they have now), or a teammate.

export async function callerAgent(
  tx: TenantTx,
  user: { id: string; name: string; email: string },
): Promise<LiveAgent> {
  return (await findAgent(tx, user.id)) ?? { id: user.id, name: displayName(user) };
}

export async function teammateAgent(tx: TenantTx, userId: string): Promise<LiveAgent> {
  const agent = await findAgent(tx, userId);
  if (!agent) throw new AppError("not_found", "This teammate was not found.");
  return agent;
}

export function conversationGone(): AppError {
  return new AppError("not_found", "This conversation was not found.");
}
