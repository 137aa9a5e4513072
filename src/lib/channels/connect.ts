import "server-only";
import { randomUUID } from "node:crypto";
import { z } from "zod";
import {
  assertOperator,
  assertRole,
  auditedTx,
  type OperatorContext,
  type TenantContext,
} from "../auth/access";
import {
  type ConnectionRow,
  deleteConnection,
  getConnectionByChannel,
  setChannelsSwitch,
  upsertConnection,
} from "../db/queries/channels";
import type { Channel, SealedSecret } from "../db/schema";
import { env } from "../env";
import { AppError } from "../errors";
import { adapterFor } from "./adapter";
import type { ApiBases } from "./adapter-types";
import { newConnectionKey, newWebhookSecret, type SecretField, sealChannelSecret } from "./identity";
import { createTelegramClient } from "./telegram/api";
import { webhookUrl } from "./webhook-url";

// The Channels page's use cases, for admins and owners: connect WhatsApp or Telegram, disconnect. Secrets are
// write-only: a field left empty keeps the stored value, and nothing secret is ever read back to a page.
// The tenant comes from the guard's context only.

const secretText = (max: number, tooLong: string) => z.string().trim().max(max, tooLong).default("");

export const whatsappFormSchema = z.object({
  phoneNumberId: z
    .string()
    .trim()
    .regex(/^\d{5,30}$/, "The phone number id is the number Meta shows under API Setup (digits only)"),
  accessToken: secretText(1000, "This access token is too long"),
  appSecret: secretText(200, "This app secret is too long"),
  verifyToken: secretText(200, "This verify token is too long"),
});
export type WhatsAppForm = z.infer<typeof whatsappFormSchema>;

export const telegramFormSchema = z.object({
  botToken: z
    .string()
    .trim()
    .regex(
      /^\d+:[\w-]{20,}$/,
      "A bot token looks like 123456789:AAH… (BotFather sends it when you create the bot)",
    ),
});
export type TelegramForm = z.infer<typeof telegramFormSchema>;

function sealAll(
  tenantId: string,
  connectionId: string,
  values: Partial<Record<SecretField, string>>,
): Record<string, SealedSecret> {
  const out: Record<string, SealedSecret> = {};
  for (const [field, value] of Object.entries(values) as [SecretField, string | undefined][]) {
    if (value) out[field] = sealChannelSecret(value, tenantId, connectionId, field);
  }
  return out;
}

/** Connects (or updates) WhatsApp. The first time, every secret is needed; afterwards only the changed ones. */
export async function connectWhatsApp(ctx: TenantContext, input: WhatsAppForm): Promise<void> {
  assertRole(ctx, "admin");
  const tenantId = ctx.tenant.id;
  await auditedTx(ctx, async (tx, record) => {
    const existing = await getConnectionByChannel(tx, "whatsapp");
    const id = existing?.id ?? randomUUID();
    const fieldErrors: Record<string, string[]> = {};
    const need = (field: SecretField, words: string) => {
      if (!input[field as keyof WhatsAppForm] && !existing?.secrets[field]) fieldErrors[field] = [words];
    };
    need("accessToken", "Paste the access token (a permanent system user token)");
    need("appSecret", "Paste the app secret (App settings → Basic)");
    need("verifyToken", "Choose a verify token; you type the same one at Meta");
    if (Object.keys(fieldErrors).length > 0)
      throw new AppError("invalid_input", "Nothing was saved.", { fieldErrors });
    await upsertConnection(tx, {
      id,
      tenantId,
      channel: "whatsapp",
      key: existing?.key ?? newConnectionKey(),
      settings: { phoneNumberId: input.phoneNumberId },
      secrets: sealAll(tenantId, id, {
        accessToken: input.accessToken,
        appSecret: input.appSecret,
        verifyToken: input.verifyToken,
      }),
    });
    await record("channel.connected", {
      target: "whatsapp",
      details: {
        phoneNumberId: input.phoneNumberId,
        secretsChanged: (["accessToken", "appSecret", "verifyToken"] as const).filter((f) => input[f]),
      },
    });
  });
}

/**
 * Connects Telegram: the token is proved with getMe, then the webhook is registered at Telegram with a fresh
 * secret_token, which every update must carry back. Nothing is saved when Telegram refuses.
 */
export async function connectTelegram(
  ctx: TenantContext,
  input: TelegramForm,
  opts: { telegramBaseUrl?: string } = {},
): Promise<void> {
  assertRole(ctx, "admin");
  if (!env().MICHI_PUBLIC_URL.startsWith("https://"))
    throw new AppError(
      "conflict",
      "Telegram only delivers to an https address: set MICHI_PUBLIC_URL to this server's https address first.",
    );
  const tenantId = ctx.tenant.id;
  const existing = await auditedTx(ctx, (tx) => getConnectionByChannel(tx, "telegram"));
  const id = existing?.id ?? randomUUID();
  const key = existing?.key ?? newConnectionKey();
  const secret = newWebhookSecret();
  const client = createTelegramClient({ botToken: input.botToken, baseUrl: opts.telegramBaseUrl });
  const me = await client.getMe();
  if (!me.ok)
    throw new AppError("invalid_input", "Nothing was saved.", { fieldErrors: { botToken: [me.message] } });
  const set = await client.setWebhook(webhookUrl({ channel: "telegram", key }), secret);
  if (!set.ok)
    throw new AppError("invalid_input", "Nothing was saved.", {
      fieldErrors: { botToken: [`Telegram refused the webhook: ${set.message}`] },
    });
  await auditedTx(ctx, async (tx, record) => {
    await upsertConnection(tx, {
      id,
      tenantId,
      channel: "telegram",
      key,
      settings: { botUsername: me.username ?? undefined },
      secrets: sealAll(tenantId, id, { botToken: input.botToken, webhookSecret: secret }),
    });
    await record("channel.connected", { target: "telegram", details: { bot: me.username } });
  });
}

export async function disconnectChannel(
  ctx: TenantContext,
  channel: Channel,
  opts: ApiBases = {},
): Promise<void> {
  assertRole(ctx, "admin");
  const removed = await auditedTx(ctx, async (tx, record) => {
    const existing = await getConnectionByChannel(tx, channel);
    if (!existing || !(await deleteConnection(tx, existing.id)))
      throw new AppError("not_found", "This channel is not connected.");
    await record("channel.disconnected", { target: channel });
    return existing;
  });
  await adapterFor(removed.channel).disconnect(opts, removed);
}

/** The operator's platform-wide switch: off, no channel webhook is answered for any business. */
export async function setChannelsPlatformEnabled(ctx: OperatorContext, enabled: boolean): Promise<void> {
  assertOperator(ctx);
  await setChannelsSwitch(ctx.db.platform, enabled);
}
