import "server-only";
import { platformPacks } from "@/lib/chat/packs";
import type { DbHandle } from "@/lib/db/client";
import type { Env } from "@/lib/env";
import { knowledgeSearcherFor } from "@/lib/knowledge/searcher";
import { log } from "@/lib/log";
import type { QueueWorker } from "@/lib/queue";
import { registerTestRunSweep, testRunWorkers } from "./jobs";
import type { RunDeps } from "./run";

// The process's wiring of test runs (boot): the registered packs searching the process database, the
// process's model clients, and the sweep that starts due runs.

export function defaultTestRunDeps(db: DbHandle, e: Env): RunDeps {
  const search = knowledgeSearcherFor(db);
  return { db, turn: { db, env: e, packs: { ...platformPacks, knowledge: search } }, search, log: log() };
}

export function processTestRunWorkers(db: DbHandle, e: Env): QueueWorker[] {
  registerTestRunSweep(db, e);
  return testRunWorkers(() => defaultTestRunDeps(db, e));
}
