import "server-only";
import type { ModelClient } from "../chat/model-http";
import type { StoreRetry } from "../chat/persist";
import type { PackDeps } from "../chat/turn";
import type { DbHandle } from "../db";
import type { ConnectionRow } from "../db/queries/channels";
import type { Env } from "../env";
import { wakeLive } from "../live/bus";
import { openChannelSecret } from "./identity";
import { createTelegramClient, type TelegramClient } from "./telegram/api";
import { createWhatsAppClient, type WhatsAppClient } from "./whatsapp/api";

/** What the channel jobs and webhooks need; tests pass their own database, model, and API base URLs. */
export type ChannelDeps = {
  db: DbHandle;
  env: Env;
  packs: PackDeps;
  modelClient?: (e: Env, model: string) => ModelClient;
  storeRetry?: StoreRetry;
  /** The Graph API and Bot API origins (tests: a fake server on loopback the allowlist names). */
  graphBaseUrl?: string;
  telegramBaseUrl?: string;
  now?: () => Date;
  /**
   * How long after a reply is stored its send job may run: the worker sends at once itself, and the job only
   * retries what that attempt could not send (SEND_SAFETY_SECONDS when absent; tests shorten it).
   */
  sendJobDelaySeconds?: number;
};

/** What a turn on a channel, or a confirmation's round, runs with: the job's own deps and the live bus. */
export function turnDeps(deps: ChannelDeps) {
  const { db, env, packs, modelClient, storeRetry } = deps;
  return { db, env, packs, modelClient, storeRetry, wakeLive };
}

/** Longer than the Graph or Bot API may take to answer, so the job never races the worker's own attempt. */
export const SEND_SAFETY_SECONDS = 30;

/** The WhatsApp client of a connection, with its token opened for this call only. */
export function whatsappClientFor(
  deps: Pick<ChannelDeps, "graphBaseUrl">,
  conn: ConnectionRow,
): WhatsAppClient {
  return createWhatsAppClient({
    phoneNumberId: conn.settings.phoneNumberId ?? "",
    accessToken: openChannelSecret(conn.secrets, conn.tenantId, conn.id, "accessToken") ?? "",
    baseUrl: deps.graphBaseUrl,
  });
}

export function telegramClientFor(
  deps: Pick<ChannelDeps, "telegramBaseUrl">,
  conn: ConnectionRow,
): TelegramClient {
  return createTelegramClient({
    botToken: openChannelSecret(conn.secrets, conn.tenantId, conn.id, "botToken") ?? "",
    baseUrl: deps.telegramBaseUrl,
  });
}
