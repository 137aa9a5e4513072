import type { TestRunTrigger } from "@/lib/test-questions/views";

/** Why a run started, as the pages say it. */
export const TRIGGER_WORDS: Record<TestRunTrigger, string> = {
  manual: "Run now",
  knowledge: "a knowledge sync",
  bot: "a change of the bot's prompt",
  packs: "a change of the packs",
  model: "a change of model",
};
