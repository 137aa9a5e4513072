import "server-only";
import { checkRegistry } from "./check";
import { ALL_PACKS } from "./index";
import { estimateTokens } from "./tokens";

/** Called once by boot(): a broken or duplicate pack stops start-up with a message naming it. */
export function checkRegistryAtStartup(): void {
  checkRegistry(ALL_PACKS);
  // Building the token encoder takes a second or two; do it now rather than in a visitor's first tool call.
  setTimeout(() => estimateTokens("warm up"), 0).unref();
}
