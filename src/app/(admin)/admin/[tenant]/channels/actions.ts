"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { tenantAction } from "@/lib/auth/guard";
import { checkChannelConnection } from "@/lib/channels/check";
import {
  connectTelegram,
  connectWhatsApp,
  disconnectChannel,
  telegramFormSchema,
  whatsappFormSchema,
} from "@/lib/channels/connect";
import { channelApiUrls } from "@/lib/channels/runtime";
import { CHANNELS } from "@/lib/db/schema";
import { env } from "@/lib/env";

// The Channels page's actions, for owners and admins. Secret fields are never echoed back to the form.

const channel = z.enum(CHANNELS, { error: "Unknown channel" });
const refresh = (slug: string) => revalidatePath(`/admin/${slug}/channels`);

export const connectWhatsAppAction = tenantAction("admin", whatsappFormSchema, async (ctx, input) => {
  const checked = await connectWhatsApp(ctx, input, channelApiUrls(env()));
  refresh(ctx.tenant.slug);
  return { message: `WhatsApp saved. ${checked} Paste the webhook URL and your verify token at Meta.` };
});

export const connectTelegramAction = tenantAction("admin", telegramFormSchema, async (ctx, input) => {
  await connectTelegram(ctx, input, channelApiUrls(env()));
  refresh(ctx.tenant.slug);
  return { message: "Telegram connected: messages to your bot are answered from now on." };
});

export const disconnectChannelAction = tenantAction("admin", z.object({ channel }), async (ctx, input) => {
  await disconnectChannel(ctx, input.channel, channelApiUrls(env()));
  refresh(ctx.tenant.slug);
  return { message: "Disconnected." };
});

export const checkChannelAction = tenantAction("admin", z.object({ channel }), async (ctx, input) => {
  const check = await checkChannelConnection(ctx, input.channel, channelApiUrls(env()));
  return {
    ok: check.ok,
    message: check.ok ? "The connection works." : "Something needs fixing.",
    data: { report: check.lines.join("\n") },
  };
});
