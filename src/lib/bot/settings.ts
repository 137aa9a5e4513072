import "server-only";
import { assertRole, auditedTx, type TenantContext } from "@/lib/auth/access";
import { saveBotSettings } from "@/lib/db/queries/bot";
import { requestAutoTestRun } from "@/lib/db/queries/test-questions";
import { type BotFormInput, toBotSettings } from "./form";

// The Bot page's save, for admins and owners. The input is the Bot form's parsed shape (botFormSchema, against
// the operator's model list as it is now); the edge that received it did the parsing.

const ANSWER_FIELDS = new Set(["instructions", "language", "actionsOff", "figureCheck"]);

/** Stores the Bot settings; the audit entry names the settings that changed, never their values. */
export async function updateBotSettings(
  ctx: TenantContext,
  input: BotFormInput,
): Promise<{ changed: string[] }> {
  assertRole(ctx, "admin");
  const settings = toBotSettings(input);
  return auditedTx(ctx, async (tx, record) => {
    const result = await saveBotSettings(tx, ctx.tenant.id, settings);
    if (result.changed.length > 0)
      await record("bot.settings_saved", { target: "bot", details: { fields: result.changed } });
    // What the bot is told and which model answers change answers; its colours and greeting do not.
    if (result.changed.includes("model")) await requestAutoTestRun(tx, ctx.tenant.id, "model");
    if (result.changed.some((f) => ANSWER_FIELDS.has(f))) await requestAutoTestRun(tx, ctx.tenant.id, "bot");
    return { changed: result.changed };
  });
}
