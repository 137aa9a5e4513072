"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { operatorAction } from "@/lib/auth/guard";
import { setChannelsPlatformEnabled } from "@/lib/channels/connect";

// The operator's platform-wide switch for WhatsApp and Telegram.
export const setChannelsSwitchAction = operatorAction(
  z.object({ enabled: z.enum(["true", "false"]).transform((v) => v === "true") }),
  async (ctx, input) => {
    await setChannelsPlatformEnabled(ctx, input.enabled);
    revalidatePath("/admin/operator");
    return {
      message: input.enabled
        ? "Channels are on: businesses' WhatsApp and Telegram messages are answered."
        : "Channels are off: no WhatsApp or Telegram message is answered or stored until you switch them on.",
    };
  },
);
