"use server";

import { revalidatePath } from "next/cache";
import { tenantAction } from "@/lib/auth/guard";
import { presenceSchema, recordPresence } from "@/lib/live/presence";
import { addInternalNote, agentReplySchema, noteSchema, sendAgentReply } from "@/lib/live/reply";
import { liveSettingsSchema, updateLiveSettings } from "@/lib/live/settings";
import {
  assignConversation,
  assignSchema,
  claimConversation,
  closeLiveConversation,
  handBackConversation,
  liveTargetSchema,
} from "@/lib/live/takeover";

// The live console's actions (issue #28). Admins and owners answer visitors; viewers watch and are refused
// here and again by each use case.

const refresh = (slug: string) => revalidatePath(`/admin/${slug}/inbox/live`);

export const claimAction = tenantAction("admin", liveTargetSchema, async (ctx, input) => {
  await claimConversation(ctx, input);
  refresh(ctx.tenant.slug);
  return { message: "You have this conversation now." };
});

export const assignAction = tenantAction("admin", assignSchema, async (ctx, input) => {
  await assignConversation(ctx, input);
  refresh(ctx.tenant.slug);
  return { message: "Given to your teammate." };
});

export const handBackAction = tenantAction("admin", liveTargetSchema, async (ctx, input) => {
  await handBackConversation(ctx, input);
  refresh(ctx.tenant.slug);
  return { message: "Handed back to the bot." };
});

export const closeAction = tenantAction("admin", liveTargetSchema, async (ctx, input) => {
  await closeLiveConversation(ctx, input);
  refresh(ctx.tenant.slug);
  return { message: "Chat ended. The bot answers this visitor's next message." };
});

export const replyAction = tenantAction("admin", agentReplySchema, async (ctx, input) => {
  await sendAgentReply(ctx, input);
  refresh(ctx.tenant.slug);
  return { message: "Sent." };
});

export const noteAction = tenantAction("admin", noteSchema, async (ctx, input) => {
  await addInternalNote(ctx, input);
  refresh(ctx.tenant.slug);
  return { message: "Note added." };
});

export const presenceAction = tenantAction("admin", presenceSchema, async (ctx, input) => {
  await recordPresence(ctx, input);
  if (input.away !== undefined) refresh(ctx.tenant.slug);
  return undefined;
});

export const liveSettingsAction = tenantAction("admin", liveSettingsSchema, async (ctx, input) => {
  await updateLiveSettings(ctx, input);
  refresh(ctx.tenant.slug);
  return { message: "Settings saved." };
});
