import "server-only";
import { type ActionState, parseForm, type TenantContext } from "@/lib/auth/guard";
import { audit } from "@/lib/db/queries/audit";
import { saveBotSettings } from "@/lib/db/queries/bot";
import { botFormSchema, toBotSettings } from "./form";

// The Bot page's save, apart from Next so tests can call it with a TenantContext.

/** Validates and stores the Bot form; the audit entry names the settings that changed, never their values. */
export async function saveBotForm(
  ctx: TenantContext,
  fd: FormData,
  models: readonly string[],
): Promise<ActionState> {
  const parsed = parseForm(botFormSchema(models), fd);
  if (!parsed.ok) return parsed.state;
  const settings = toBotSettings(parsed.data);
  const tenantId = ctx.tenant.id;
  const { changed } = await ctx.db.forTenant(tenantId, async (tx) => {
    const result = await saveBotSettings(tx, tenantId, settings);
    if (result.changed.length > 0) {
      await audit(tx, {
        tenantId,
        actor: ctx.user,
        action: "bot.settings_saved",
        target: "bot",
        details: { fields: result.changed },
      });
    }
    return result;
  });
  return { ok: true, message: changed.length > 0 ? "Bot settings saved." : "No changes to save." };
}
