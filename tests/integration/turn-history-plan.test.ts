import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rowsOf } from "@/lib/db/client";
import { createTenant } from "@/lib/db/queries/tenants";
import { freshDb, type TestDb } from "../support/db";

// A turn reads its conversation's recent messages, newest first (michi_open_turn). On a database that has
// never been analyzed (a new install, its first minute) the planner has no statistics; it must still read
// that history through the conversation, not walk every message of the tenant looking for it: otherwise each
// turn slows down with the tenant's message count (bench/README.md, issue 17; drizzle/0013).

let t: TestDb;
let tenantId: string;
let conversationId: string;

beforeAll(async () => {
  t = await freshDb();
  tenantId = (await createTenant(t.handle.platform, { slug: "history-plan", name: "History" })).id;
  // 300 conversations of 10 messages each, inserted in bulk and never analyzed.
  await t.handle.platform.execute(sql`
    with c as (
      insert into conversations (tenant_id, visitor_id, origin, page_url, locale)
      select ${tenantId}, 'visitor-' || g, 'https://shop.example', '', 'en' from generate_series(1, 300) g
      returning id)
    insert into messages (tenant_id, conversation_id, role, content, created_at)
    select ${tenantId}, c.id, case when m % 2 = 0 then 'user' else 'assistant' end, 'message ' || m,
           now() - (m || ' seconds')::interval
      from c, generate_series(1, 10) m`);
  const [one] = await rowsOf<{ id: string }>(t.handle.platform, sql`select id from conversations limit 1`);
  conversationId = one!.id;
});
afterAll(() => t?.close());

type PlanNode = { "Node Type": string; "Index Name"?: string; Plans?: PlanNode[] };
const nodes = (n: PlanNode): PlanNode[] => [n, ...(n.Plans ?? []).flatMap(nodes)];

describe("the history a turn reads, before any statistics", () => {
  it("comes from the conversation's own index, already in order", async () => {
    const plan = await t.handle.forTenant(tenantId, async (tx) => {
      const [row] = await rowsOf<{ "QUERY PLAN": [{ Plan: PlanNode }] }>(
        tx,
        // The statement of michi_open_turn (drizzle/0011), as the tenant role runs it.
        sql`explain (format json)
            select x.id, x.role, x.content, x.status, x.created_at from messages x
             where x.conversation_id = ${conversationId}::uuid
             order by x.created_at desc, x.id desc limit 100`,
      );
      return row!["QUERY PLAN"][0].Plan;
    });
    const all = nodes(plan);
    expect(all.map((n) => n["Index Name"]).filter(Boolean)).toEqual(["messages_tenant_conversation_idx"]);
    expect(all.map((n) => n["Node Type"])).not.toContain("Sort");
  });

  it("holds the conversation's messages newest first", async () => {
    const got = await t.handle.forTenant(tenantId, (tx) =>
      rowsOf<{ content: string }>(
        tx,
        sql`select x.content from messages x where x.conversation_id = ${conversationId}::uuid
             order by x.created_at desc, x.id desc limit 3`,
      ),
    );
    expect(got.map((r) => r.content)).toEqual(["message 1", "message 2", "message 3"]);
  });
});
