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
import {
  newConnectionKey,
  newWebhookSecret,
  openChannelSecret,
  type SecretField,
  sealChannelSecret,
} from "./identity";
import { createTelegramClient } from "./telegram/api";
import { webhookUrl } from "./webhook-url";
import { createWhatsAppClient } from "./whatsapp/api";

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

/**
 * Asks Meta for the phone number with the token about to be saved, as Check connection does. A token or number
 * Meta refuses is not saved (it used to be saved and shown as "Connected."); when Meta cannot be reached the
 * settings are saved and the answer says the check is still to do.
 */
async function checkWhatsAppCredentials(
  input: WhatsAppForm,
  existing: ConnectionRow | null,
  opts: ApiBases,
): Promise<string> {
  const stored = existing
    ? openChannelSecret(existing.secrets, existing.tenantId, existing.id, "accessToken")
    : null;
  const token = input.accessToken || stored;
  if (!token) return "";
  const r = await createWhatsAppClient({
    phoneNumberId: input.phoneNumberId,
    accessToken: token,
    baseUrl: opts.graphBaseUrl,
  }).checkConnection();
  if (r.ok) return `Meta confirmed the access token for ${r.displayPhoneNumber ?? "this number"}.`;
  if (r.retryable)
    return `Meta could not be reached to check the access token (${r.message}); use Check connection later.`;
  const field = r.code === "100" ? "phoneNumberId" : "accessToken";
  throw new AppError("invalid_input", `Nothing was saved: ${r.message}.`, {
    fieldErrors: { [field]: [r.message] },
  });
}

/**
 * Connects (or updates) WhatsApp. The first time, every secret is needed; afterwards only the changed ones.
 * Answers what Meta said of the token, in words.
 */
export async function connectWhatsApp(
  ctx: TenantContext,
  input: WhatsAppForm,
  opts: ApiBases = {},
): Promise<string> {
  assertRole(ctx, "admin");
  const tenantId = ctx.tenant.id;
  const existing = await auditedTx(ctx, (tx) => getConnectionByChannel(tx, "whatsapp"));
  const fieldErrors: Record<string, string[]> = {};
  const need = (field: SecretField, words: string) => {
    if (!input[field as keyof WhatsAppForm] && !existing?.secrets[field]) fieldErrors[field] = [words];
  };
  need("accessToken", "Paste the access token (a permanent system user token)");
  need("appSecret", "Paste the app secret (App settings → Basic)");
  need("verifyToken", "Choose a verify token; you type the same one at Meta");
  if (Object.keys(fieldErrors).length > 0)
    throw new AppError("invalid_input", "Nothing was saved.", { fieldErrors });
  // Outside the transaction: no row is held while Meta answers.
  const checked = await checkWhatsAppCredentials(input, existing, opts);
  await auditedTx(ctx, async (tx, record) => {
    const current = await getConnectionByChannel(tx, "whatsapp");
    const id = current?.id ?? randomUUID();
    await upsertConnection(tx, {
      id,
      tenantId,
      channel: "whatsapp",
      key: current?.key ?? newConnectionKey(),
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
  return checked;
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
      "Telegram only delivers to an https address, and this installation's address is not https. Ask your platform's operator to serve it over https (they set its public address).",
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
