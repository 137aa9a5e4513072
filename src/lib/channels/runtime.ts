import "server-only";
import { platformPacks } from "../chat/packs";
import type { DbHandle } from "../db";
import type { Env } from "../env";
import type { QueueWorker } from "../queue";
import { channelWorkers } from "./worker";

/** The process's channel jobs (boot): the process database, environment and the registered packs. */
export function defaultChannelWorkers(db: DbHandle, e: Env): QueueWorker[] {
  return channelWorkers({ db, env: e, packs: platformPacks });
}
