import "server-only";
import type { ActionState, TenantContext } from "@/lib/auth/guard";
import { audit } from "@/lib/db/queries/audit";
import { saveSiteDomains } from "@/lib/db/queries/bot";
import { parseSiteEntry } from "@/lib/security/origins";

// The Site & embed page's save, apart from Next so tests can call it with a TenantContext.

export const MAX_SITE_ENTRIES = 20;

export type DomainsParse =
  | { ok: true; entries: string[] }
  | { ok: false; message: string; lineErrors: { line: number; message: string }[] };

/**
 * One entry per line: a bare domain (stored in punycode, lower case) or a full origin. Blank lines and
 * duplicates are dropped; every faulty line gets its own message with its line number.
 */
export function parseDomainLines(raw: string): DomainsParse {
  const lines = raw.split(/\r?\n/);
  const entries: string[] = [];
  const lineErrors: { line: number; message: string }[] = [];
  lines.forEach((text, i) => {
    if (!text.trim()) return;
    const parsed = parseSiteEntry(text);
    if ("error" in parsed) lineErrors.push({ line: i + 1, message: parsed.error });
    else {
      const value = parsed.kind === "domain" ? parsed.domain : parsed.origin;
      if (!entries.includes(value)) entries.push(value);
    }
  });
  if (lineErrors.length > 0) {
    const n = lineErrors.length;
    return { ok: false, message: n === 1 ? "One line needs fixing." : `${n} lines need fixing.`, lineErrors };
  }
  if (entries.length > MAX_SITE_ENTRIES)
    return {
      ok: false,
      message: `Enter at most ${MAX_SITE_ENTRIES} domains (you entered ${entries.length}).`,
      lineErrors,
    };
  return { ok: true, entries };
}

/** The one line a tenant pastes into their site. */
export function embedSnippet(publicUrl: string, widgetKey: string): string {
  return `<script src="${publicUrl}/widget.js" data-michi-key="${widgetKey}" async></script>`;
}

export async function saveDomainsForm(ctx: TenantContext, raw: string): Promise<ActionState> {
  const parsed = parseDomainLines(raw);
  if (!parsed.ok) {
    const fieldErrors: Record<string, string> = { siteDomains: parsed.message };
    for (const e of parsed.lineErrors)
      fieldErrors[`siteDomains.line${e.line}`] = `Line ${e.line}: ${e.message}`;
    return { ok: false, message: "Nothing was saved. Please correct the highlighted lines.", fieldErrors };
  }
  const tenantId = ctx.tenant.id;
  const { added, removed } = await ctx.db.forTenant(tenantId, async (tx) => {
    const change = await saveSiteDomains(tx, tenantId, parsed.entries);
    if (change.added.length > 0 || change.removed.length > 0) {
      // Domains are public facts, so the entry may name them.
      await audit(tx, {
        tenantId,
        actor: ctx.user,
        action: "site.domains_changed",
        target: "site_domains",
        details: { added: change.added, removed: change.removed },
      });
    }
    return change;
  });
  return {
    ok: true,
    message: added.length + removed.length > 0 ? "Site domains saved." : "No changes to save.",
    values: { siteDomains: parsed.entries.join("\n") },
  };
}
