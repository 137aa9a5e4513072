import "server-only";
import { fill } from "../../shared/fill";
import { langOrEnglish } from "../../shared/languages";
import { LIVE_STRINGS, liveWords } from "../../shared/live-words";
import { lockLiveConversation } from "../db/queries/live-conversations";
import { isAppError } from "../errors";
import { takeLeadPoint } from "../leads/limits";
import { requestPerson } from "../live/request";
import type { ChannelDeps } from "./deps";

// A person on WhatsApp or Telegram asks for someone of the business: in plain words (live-words.ts) or through
// the assistant offering a person (request_human). The live request is the widget's own (live/request.ts:
// presence, hours, round-robin, escalation) behind the widget's limit on contact requests; what the person
// reads back is the widget's wording for the outcome, in the bot's language.

export type AskedPerson = { live: boolean; text: string };

/**
 * Opens a live request for the conversation. Null when there is nothing to tell: a person already has it or
 * it is already waiting, or the person asked too often (the assistant answers their message instead).
 */
export async function askForPerson(
  deps: Pick<ChannelDeps, "db" | "now">,
  input: { tenantId: string; language: string | undefined; visitorId: string; conversationId: string },
): Promise<AskedPerson | null> {
  const state = await deps.db.forTenant(
    input.tenantId,
    async (tx) => (await lockLiveConversation(tx, input.conversationId))?.liveState,
  );
  if (!state || state === "waiting" || state === "person") return null;
  try {
    // A channel has no address: the person stands in for it, as for the turn's limits.
    await takeLeadPoint(
      { tenantId: input.tenantId, visitorId: input.visitorId, ip: input.visitorId },
      "Please wait a moment before asking for a person again.",
    );
  } catch (err) {
    if (isAppError(err) && err.code === "rate_limited") return null;
    throw err;
  }
  const outcome = await requestPerson(
    deps.db,
    { tenantId: input.tenantId, visitorId: input.visitorId, conversationId: input.conversationId },
    deps.now?.() ?? new Date(),
  );
  const words = liveWords(input.language);
  if (outcome.live) {
    const expected = outcome.expectedWaitMin
      ? ` ${fill(LIVE_STRINGS[langOrEnglish(input.language)].expected, { min: String(outcome.expectedWaitMin) })}`
      : "";
    return { live: true, text: `${words.waiting}${expected}` };
  }
  return { live: false, text: outcome.reason === "closed" ? words.outsideHours : words.nobody };
}
