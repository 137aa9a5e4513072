import "server-only";
import { sql } from "drizzle-orm";
import { rowsOf, type TenantTx } from "../client";

// Sites refused by the widget's origin check, as the loader reported them (see drizzle/0022).

const KEEP = 20;

/** Notes one refusal: at most one write a minute per site; the 20 newest sites kept, none over 30 days. */
export async function noteRefusedOrigin(tx: TenantTx, tenantId: string, origin: string): Promise<void> {
  const rows = await rowsOf<{ fresh: boolean }>(
    tx,
    sql`insert into widget_refused_origins (tenant_id, origin) values (${tenantId}::uuid, ${origin})
        on conflict (tenant_id, origin) do update
          set hits = widget_refused_origins.hits + 1, last_seen_at = now()
          where widget_refused_origins.last_seen_at < now() - interval '1 minute'
        returning (xmax = 0) as fresh`,
  );
  if (!rows[0]?.fresh) return; // an update, or nothing written: the list did not grow
  await tx.execute(
    sql`delete from widget_refused_origins
        where last_seen_at < now() - interval '30 days'
           or origin not in (select origin from widget_refused_origins order by last_seen_at desc limit ${KEEP})`,
  );
}

export type RefusedOrigin = { origin: string; firstSeenAt: Date; lastSeenAt: Date; hits: number };

/** The sites refused within the last week, newest first. */
export async function listRefusedOrigins(tx: TenantTx): Promise<RefusedOrigin[]> {
  const rows = await rowsOf<RefusedOrigin>(
    tx,
    sql`select origin, first_seen_at as "firstSeenAt", last_seen_at as "lastSeenAt", hits
        from widget_refused_origins where last_seen_at > now() - interval '7 days'
        order by last_seen_at desc`,
  );
  return rows.map((r) => ({
    ...r,
    firstSeenAt: new Date(r.firstSeenAt),
    lastSeenAt: new Date(r.lastSeenAt),
  }));
}
