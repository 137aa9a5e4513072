import "server-only";
import { platformPacks } from "../chat/packs";
import type { PackDeps } from "../chat/turn";
import type { DbHandle } from "../db";
import type { Env } from "../env";
import { knowledgeSearcherFor } from "../knowledge/searcher";
import { bookingDeskFor } from "../leads/booking";
import type { QueueWorker } from "../queue";
import type { ChannelDeps } from "./deps";
import { channelWorkers } from "./worker";

/**
 * The Graph API and Bot API addresses the operator configured (unset: the providers' own). The channel wire
 * still refuses any host but the provider's and the operator allowlist's.
 */
export function channelApiUrls(e: Env): Pick<ChannelDeps, "graphBaseUrl" | "telegramBaseUrl"> {
  return { graphBaseUrl: e.MICHI_CHANNELS_GRAPH_URL, telegramBaseUrl: e.MICHI_CHANNELS_TELEGRAM_URL };
}

/**
 * The registered packs, searching `db`'s knowledge and filing its booking requests in their run context: what
 * a channel's turn runs.
 */
export function channelPacks(db: DbHandle): PackDeps {
  return { ...platformPacks, knowledge: knowledgeSearcherFor(db), bookings: bookingDeskFor(db) };
}

/** The process's channel jobs (boot): the process database, environment and packs. */
export function defaultChannelWorkers(db: DbHandle, e: Env): QueueWorker[] {
  return channelWorkers({ db, env: e, packs: channelPacks(db), ...channelApiUrls(e) });
}
