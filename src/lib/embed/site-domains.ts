import "server-only";
import { assertRole, auditedTx, type TenantContext } from "@/lib/auth/access";
import { saveSiteDomains } from "@/lib/db/queries/bot";
import { AppError } from "@/lib/errors";
import { parseSiteEntry } from "@/lib/security/origins";

// The Site & embed page's save, for admins and owners, apart from Next so tests can call it with a
// TenantContext.

export const MAX_SITE_ENTRIES = 20;

export type DomainsParse =
  | { ok: true; entries: string[] }
  | { ok: false; message: string; lineErrors: { line: number; message: string }[] };

/**
 * One entry per line: a bare domain (stored in punycode, lower case) or a full origin. Blank lines and
 * duplicates are dropped; every faulty line gets its own message with its line number.
 */
export function parseDomainLines(raw: string): DomainsParse {
  return parseDomainEntries(raw.split(/\r?\n/));
}

/** parseDomainLines for entries already split; an entry's line number is its position, counting from 1. */
function parseDomainEntries(lines: readonly string[]): DomainsParse {
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

/**
 * Replaces the tenant's site domains with `lines` (one entry each, as parseDomainLines reads them). Nothing is
 * stored when any line is faulty: the error has a field error for the list and one per faulty line.
 */
export async function updateSiteDomains(
  ctx: TenantContext,
  lines: readonly string[],
): Promise<{ entries: string[]; added: string[]; removed: string[] }> {
  assertRole(ctx, "admin");
  const parsed = parseDomainEntries(lines);
  if (!parsed.ok) {
    const fieldErrors: Record<string, string[]> = { siteDomains: [parsed.message] };
    for (const e of parsed.lineErrors)
      fieldErrors[`siteDomains.line${e.line}`] = [`Line ${e.line}: ${e.message}`];
    throw new AppError("invalid_input", "Nothing was saved. Please correct the highlighted lines.", {
      fieldErrors,
    });
  }
  const { added, removed } = await auditedTx(ctx, async (tx, record) => {
    const change = await saveSiteDomains(tx, ctx.tenant.id, parsed.entries);
    if (change.added.length > 0 || change.removed.length > 0)
      // Domains are public facts, so the entry may name them.
      await record("site.domains_changed", {
        target: "site_domains",
        details: { added: change.added, removed: change.removed },
      });
    return change;
  });
  return { entries: parsed.entries, added, removed };
}
