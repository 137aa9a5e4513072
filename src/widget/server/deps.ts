import "server-only";
import type { DbHandle } from "@/lib/db";
import type { Env } from "@/lib/env";

/** What the widget's server handlers need; tests pass their own database and environment. */
export type WidgetServerDeps = { db: () => Promise<DbHandle>; env: () => Env };

export async function defaultDeps(): Promise<WidgetServerDeps> {
  const [{ getDb }, { env }] = await Promise.all([import("@/lib/db"), import("@/lib/env")]);
  return { db: getDb, env };
}
