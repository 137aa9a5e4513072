import "server-only";
import { langOf } from "../../shared/languages";
import type { DbHandle } from "../db";
import type { BotSettings } from "../db/schema";
import { log } from "../log";
import type { Lang } from "../tools/contract";
import { closeCallsForTurn, proposeIn } from "./confirm-round";
import type { EnabledPack } from "./loop";
import type { PackDeps } from "./turn";

/** What of the turn's deps and input this needs (run-turn.ts passes its own). */
type ActionDeps = { db: DbHandle; packs: Pick<PackDeps, "chipLabel"> };
type ActionInput = {
  tenant: { id: string; bot: BotSettings };
  lang?: Lang;
  locale: string;
  buttons?: boolean;
};

/**
 * What a turn does about packs that act for the visitor: a business that switched them off does not offer
 * them; a new message declines any card still waiting (the model is told before it reads the message); the
 * widget can show a new card. A turn without such packs pays nothing for this (no query).
 */
export async function actionsFor(
  deps: ActionDeps,
  input: ActionInput,
  opened: { conversationId: string; userMessageId: string; enabled: EnabledPack[] },
) {
  if (!opened.enabled.some((e) => e.pack.confirm)) return { enabled: opened.enabled };
  const { tenant } = input;
  const lang = input.lang ?? langOf(input.locale);
  const label = (packId: string) => {
    const e = opened.enabled.find((p) => p.pack.id === packId);
    return e ? deps.packs.chipLabel(e.pack, lang) : packId;
  };
  const closed = await closeCallsForTurn(deps.db, tenant.id, opened.conversationId, label).catch((err) => {
    // The card stays open until it expires; the visitor's message is answered all the same.
    log().error({ err, tenantId: tenant.id }, "could not close the conversation's confirmation cards");
    return { messages: [], runs: [] };
  });
  const enabled = tenant.bot.actionsOff ? opened.enabled.filter((e) => !e.pack.confirm) : opened.enabled;
  const propose =
    input.buttons && enabled.some((e) => e.pack.confirm)
      ? proposeIn(deps.db, {
          tenantId: tenant.id,
          conversationId: opened.conversationId,
          visitorMessageId: opened.userMessageId,
          lang,
        })
      : undefined;
  return { enabled, decided: closed.messages, decidedRuns: closed.runs, propose };
}
