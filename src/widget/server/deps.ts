import "server-only";
import type { ModelClient } from "@/lib/chat/model";
import type { StoreRetry } from "@/lib/chat/persist";
import type { PackDeps } from "@/lib/chat/turn";
import type { DbHandle } from "@/lib/db";
import type { Env } from "@/lib/env";

/**
 * What the widget's server handlers need, in one type for all of them (chat, session, history, panel page);
 * tests pass their own database, environment, packs and model client. A handler that never reaches the
 * model takes Pick<WidgetDeps, "db" | "env">.
 */
export type WidgetDeps = {
  db: () => Promise<DbHandle>;
  env: () => Env;
  packs: PackDeps;
  modelClient?: (e: Env, model: string) => ModelClient;
  /** Tests shorten how long the end-of-turn store is retried; production uses STORE_RETRY. */
  storeRetry?: StoreRetry;
  /** Wakes a conversation's live streams after a visitor wrote to a person (src/lib/live/bus.ts). */
  wakeLive?: (tenantId: string, conversationId: string) => void;
};

export type WidgetStoreDeps = Pick<WidgetDeps, "db" | "env">;

let wiring: Promise<WidgetDeps> | undefined;

/**
 * The production wiring: the process database, the parsed environment and the registered packs with the
 * knowledge searcher. Built once:
 * `db` and `env` are functions that read the process's current handle and settings on every call, so the
 * object itself never goes stale, and a widget request pays no module imports.
 */
export function defaultWidgetDeps(): Promise<WidgetDeps> {
  // The live bus is loaded here, not imported by the chat handler: the compiled chat route must stay a plain
  // synchronous module for the production server's direct routes (scripts/direct-routes.mjs).
  wiring ??= Promise.all([
    import("@/lib/db"),
    import("@/lib/env"),
    import("@/lib/chat/packs"),
    import("@/lib/live/bus"),
    import("@/lib/knowledge/searcher"),
    import("@/lib/leads/booking"),
  ]).then(
    ([
      { getDb },
      { env },
      { platformPacks },
      { wakeLive },
      { processKnowledgeSearcher },
      { processBookingDesk },
    ]) => ({
      db: getDb,
      env,
      // The packs see the business's index and its booking requests through their run context, over the
      // process's database.
      packs: {
        ...platformPacks,
        knowledge: processKnowledgeSearcher(getDb),
        bookings: processBookingDesk(getDb),
      },
      wakeLive,
    }),
    (err) => {
      wiring = undefined;
      throw err;
    },
  );
  return wiring;
}
