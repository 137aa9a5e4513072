import { sql } from "drizzle-orm";
import type { DbHandle } from "@/lib/db/client";
import { rowsOf } from "@/lib/db/client";

// The schema walk behind the privacy coverage test: from the migrated database itself (not from the drizzle
// schema, which a hand-written migration could outgrow), every table that holds something about one visitor:
// a foreign key into a conversation or anything that hangs from one (messages, …), or a column that names the
// visitor (their id, a channel contact's hash or address, the identity a business vouched for).

/** Column names that identify a visitor wherever they appear. */
export const VISITOR_COLUMNS = ["visitor_id", "contact", "address", "verified_visitor"] as const;

export type VisitorLink = {
  column: string;
  to: "conversations" | "messages" | "visitor" | "address" | "self";
};
export type VisitorTable = { table: string; links: VisitorLink[] };

type Fk = { tbl: string; col: string; ref: string };

export async function walkVisitorTables(db: DbHandle): Promise<VisitorTable[]> {
  const fks = await rowsOf<Fk>(
    db.platform,
    sql`select c.conrelid::regclass::text as tbl, a.attname as col, c.confrelid::regclass::text as ref
          from pg_constraint c
          join pg_attribute a on a.attrelid = c.conrelid and a.attnum = any(c.conkey)
         where c.contype = 'f' and c.connamespace = 'public'::regnamespace`,
  );
  const cols = await rowsOf<{ tbl: string; col: string }>(
    db.platform,
    sql`select table_name as tbl, column_name as col from information_schema.columns
         where table_schema = 'public' and column_name in ${sql.raw(`(${VISITOR_COLUMNS.map((c) => `'${c}'`).join(",")})`)}`,
  );
  // Everything reachable by foreign keys from a conversation, walked until nothing new is found.
  const held = new Set(["conversations"]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const f of fks)
      if (held.has(f.ref) && !held.has(f.tbl)) {
        held.add(f.tbl);
        grew = true;
      }
  }
  const out = new Map<string, VisitorLink[]>();
  const add = (t: string, l: VisitorLink) => out.set(t, [...(out.get(t) ?? []), l]);
  add("conversations", { column: "id", to: "self" });
  for (const f of fks)
    if (f.ref === "conversations" || f.ref === "messages") add(f.tbl, { column: f.col, to: f.ref });
  for (const c of cols) add(c.tbl, { column: c.col, to: c.col === "address" ? "address" : "visitor" });
  for (const t of held) if (!out.has(t)) add(t, { column: "", to: "self" });
  return [...out].map(([table, links]) => ({ table, links })).sort((a, b) => a.table.localeCompare(b.table));
}

export type VisitorIds = {
  conversationIds: string[];
  messageIds: string[];
  visitorIds: string[];
  addresses: string[];
  verifiedIds: string[];
};

const list = (ids: string[]) =>
  ids.length ? sql.raw(`(${ids.map((i) => `'${i.replaceAll("'", "''")}'`).join(",")})`) : sql.raw("(null)");

/** How many rows of `t` any of its links ties to the visitor: what an export must hold and an erasure remove. */
export async function countLinked(db: DbHandle, t: VisitorTable, v: VisitorIds): Promise<number> {
  const conds = t.links.flatMap((l) => {
    const col = sql.identifier(l.column);
    if (l.to === "conversations" || (l.to === "self" && t.table === "conversations"))
      return [sql`${col}::text in ${list(v.conversationIds)}`];
    if (l.to === "messages") return [sql`${col}::text in ${list(v.messageIds)}`];
    if (l.to === "address") return [sql`${col}::text in ${list(v.addresses)}`];
    if (l.to === "visitor" && l.column === "verified_visitor")
      return [sql`${col}->>'id' in ${list(v.verifiedIds)}`];
    if (l.to === "visitor") return [sql`${col}::text in ${list(v.visitorIds)}`];
    return [];
  });
  if (conds.length === 0) return -1;
  const [row] = await rowsOf<{ n: number }>(
    db.platform,
    sql`select count(*)::int as n from ${sql.identifier(t.table)} where ${sql.join(conds, sql` or `)}`,
  );
  return Number(row?.n ?? 0);
}
