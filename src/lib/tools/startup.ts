import "server-only";
import { checkPackList } from "./check";
import { ALL_PACKS } from "./index";

/** Called once by boot(): a broken or duplicate pack stops start-up with a message naming it. */
export function checkPackListAtStartup(): void {
  checkPackList(ALL_PACKS);
}
