import "server-only";
import { enabledPacksFrom } from "../tools/config-store";
import { chipLabel, promptHints, runToolCall, toolDefinitions } from "../tools/runtime";
import type { PackDeps } from "./turn";

/** The registered packs (ALL_PACKS) behind the production endpoint; tests pass their own PackDeps instead. */
export const platformPacks: PackDeps = {
  loadEnabled: (rows, tenantId) => enabledPacksFrom(rows, tenantId),
  toolDefinitions,
  promptHints,
  chipLabel,
  runTool: runToolCall,
};
