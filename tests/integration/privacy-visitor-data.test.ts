import { randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POST as contactPost } from "@/app/api/widget/[key]/contact/route";
import { GET as historyGet } from "@/app/api/widget/[key]/conversations/[id]/route";
import { POST as feedbackPost } from "@/app/api/widget/[key]/feedback/route";
import { rowsOf } from "@/lib/db/client";
import { partName, VISITOR_PARTS } from "@/lib/db/queries/visitor-data";
import { auditLog, memberships, packConfigs, webhookDeliveries, webhookEndpoints } from "@/lib/db/schema";
import { leadMailWorkers } from "@/lib/leads/notify";
import { recordPresence } from "@/lib/live/presence";
import { addInternalNote, sendAgentReply } from "@/lib/live/reply";
import { claimConversation } from "@/lib/live/takeover";
import { eraseVisitorData } from "@/lib/privacy/erase";
import { collectVisitorData, exportVisitorData } from "@/lib/privacy/export";
import { findVisitor } from "@/lib/privacy/find";
import { sealSigningSecret } from "@/lib/webhooks/signing";
import { webhookWorkers } from "@/lib/webhooks/worker";
import { textMessage } from "../fixtures/channels/whatsapp/webhooks";
import { type ChannelWorld, eventually, startChannelWorld } from "../support/channel-world";
import { PLATFORM, readEvents, SITE } from "../support/chat-world";
import { countLinked, type VisitorIds, walkVisitorTables } from "../support/privacy-walk";

// One visitor's data on request (issue 46, item 4), on the real flows: a visitor chats in the widget, rates
// an answer and leaves a contact request with their phone number; the same number writes on WhatsApp, asks
// for a person, and the team replies and notes something about them. Found by that number (hashed the way the
// WhatsApp connection hashes it), everything is exported, then erased, while a second visitor's data stays.

let c: ChannelWorld;
const PHONE = "+49 151 2345 678";
const WA_FROM = "491512345678";
const EMAIL = "ana.visitor@example.com";
const HOSTILE = `Hello <img src=x onerror="alert(1)"> & "quotes"`;
let ana: { token: string; conversationId: string; answerId: string };
let bystander: { token: string; conversationId: string };
let before: VisitorIds;
const posted: { type: string; data: Record<string, unknown> }[] = [];

const key = () => c.tenant.widgetKey;
const widgetPost = (handler: typeof contactPost, path: string, token: string, body: unknown) =>
  handler(
    new Request(`${PLATFORM}/api/widget/${key()}/${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: SITE, authorization: `Bearer ${token}` },
      body: JSON.stringify(body),
    }),
    { params: Promise.resolve({ key: key() }) },
  );

async function widgetTurn(token: string, message: string, conversationId?: string) {
  const events = await readEvents(await c.w.chat(key(), { message, conversationId }, { token }));
  const done = events.find((e) => e.event === "done");
  if (!done) throw new Error(`no answer: ${JSON.stringify(events)}`);
  return { conversationId: String(done.data.conversationId), answerId: String(done.data.messageId) };
}

let seq = 0;
const waText = (from: string, body: string) =>
  textMessage(body, { from, id: `wamid.privacy-${from}-${++seq}`, timestamp: Math.floor(Date.now() / 1000) });
const sentTo = (to: string) => c.graph.sent.filter((s) => s.to === to);

/** The visitor's keys as the stored rows have them, read apart from the code under test. */
async function idsOf(conversationIds: string[]): Promise<VisitorIds> {
  const list = sql.raw(`(${conversationIds.map((i) => `'${i}'`).join(",")})`);
  const convs = await rowsOf<{ visitor_id: string }>(
    c.w.db.platform,
    sql`select visitor_id from conversations where id::text in ${list}`,
  );
  const msgs = await rowsOf<{ id: string }>(
    c.w.db.platform,
    sql`select id from messages where conversation_id::text in ${list}`,
  );
  return {
    conversationIds,
    messageIds: msgs.map((m) => m.id),
    visitorIds: convs.map((r) => r.visitor_id),
    addresses: [WA_FROM],
    verifiedIds: [],
  };
}

beforeAll(async () => {
  // The business's CRM endpoint, as a poster that keeps what it was sent (no network in this test).
  c = await startChannelWorld({
    workers: (db) => [
      ...webhookWorkers(db, {
        poster: {
          post: async (_url, body) => {
            posted.push(JSON.parse(body));
            return { ok: true, status: 200 };
          },
          close: async () => {},
        },
      }),
      ...leadMailWorkers(db),
    ],
  });
  const t = c.tenant.id;
  await c.w.db.platform.insert(memberships).values({ tenantId: t, userId: c.ctx.user.id, role: "owner" });
  await c.w.db.forTenant(t, async (tx) => {
    await tx.insert(packConfigs).values({
      tenantId: t,
      packId: "request_human",
      enabled: true,
      config: { consentText: "I agree to be contacted." },
    });
    const id = randomUUID();
    await tx.insert(webhookEndpoints).values({
      id,
      tenantId: t,
      url: "https://crm.example/hook",
      events: ["lead.created", "visitor.erased"],
      secret: sealSigningSecret("whsec_privacy-test", t, id),
    });
  });
  c.w.fake.setRules([{ match: "", steps: [{ type: "text", text: "Hello from the bot." }] }]);

  // Ana on the widget: a turn, a rating, a contact request with her phone number.
  const token = await c.w.token(key());
  const turn = await widgetTurn(token, HOSTILE);
  ana = { token, ...turn };
  expect(
    (
      await widgetPost(feedbackPost, "feedback", token, {
        messageId: turn.answerId,
        rating: "down",
        comment: "meh",
      })
    ).status,
  ).toBe(204);
  const lead = await widgetPost(contactPost, "contact", token, {
    conversationId: turn.conversationId,
    name: "Ana",
    email: EMAIL,
    phone: PHONE,
    message: "Please call me",
    consent: true,
  });
  expect(lead.status, await lead.clone().text()).toBeLessThan(300);

  // Ana on WhatsApp: the bot answers, then a person takes over, replies and notes something about her.
  await recordPresence(c.ctx, {});
  await c.post(waText(WA_FROM, "Hi there"));
  await eventually(async () => expect(sentTo(WA_FROM)).toHaveLength(1));
  const rows = await c.rows();
  const waConv = rows.contacts.find((k) => k.address === WA_FROM)!.conversationId;
  await claimConversation(c.ctx, { conversationId: waConv });
  await addInternalNote(c.ctx, { conversationId: waConv, text: "Ana prefers mornings" });
  await sendAgentReply(c.ctx, { conversationId: waConv, text: "Hi Ana, how can I help?" });
  await eventually(async () => expect(sentTo(WA_FROM).length).toBeGreaterThanOrEqual(2));

  // Someone else, on both doors: none of this may be touched.
  const other = await c.w.token(key());
  bystander = { token: other, conversationId: (await widgetTurn(other, "Opening hours?")).conversationId };
  await c.post(waText("15550009999", "hello"));
  await eventually(async () => expect(sentTo("15550009999")).toHaveLength(1));

  before = await idsOf([ana.conversationId, waConv]);
}, 120_000);
afterAll(() => c?.close());

describe("the schema walk", () => {
  it("finds every table that references a visitor, and each is exported and erased", async () => {
    const found = (await walkVisitorTables(c.w.db)).map((t) => t.table);
    // The walk itself must see what we know is there, or it proves nothing.
    expect(found).toEqual(
      expect.arrayContaining(["conversations", "messages", "leads", "channel_inbound", "live_events"]),
    );
    const covered = new Set(VISITOR_PARTS.map(partName));
    expect(
      found.filter((t) => !covered.has(t)),
      "add these to src/lib/db/queries/visitor-data.ts",
    ).toEqual([]);
  });

  it("would fail for a table added later without export and erasure", async () => {
    await c.w.db.platform.execute(
      sql`create table if not exists privacy_probe (conversation_id uuid references conversations(id))`,
    );
    try {
      const found = (await walkVisitorTables(c.w.db)).map((t) => t.table);
      const covered = new Set(VISITOR_PARTS.map(partName));
      expect(found.filter((t) => !covered.has(t))).toEqual(["privacy_probe"]);
    } finally {
      await c.w.db.platform.execute(sql`drop table privacy_probe`);
    }
  });
});

describe("one visitor's data, found by their phone number", () => {
  it("the page's search counts every kind, from the widget, WhatsApp and the live chat", async () => {
    const s = await findVisitor(c.ctx, { by: "phone", value: PHONE });
    expect(s.found).toBe(true);
    expect(s.counts).toMatchObject({ conversations: 2, leads: 1, message_feedback: 1, channel_contacts: 1 });
    for (const k of ["messages", "live_events", "channel_inbound", "channel_outbound", "webhook_deliveries"])
      expect(s.counts[k], k).toBeGreaterThan(0);
  });

  it("the export holds every row of every table the walk finds, and the HTML escapes what visitors wrote", async () => {
    const data = await collectVisitorData(c.ctx, { by: "phone", value: PHONE });
    for (const t of await walkVisitorTables(c.w.db)) {
      const n = await countLinked(c.w.db, t, before);
      expect(n, `${t.table}: no link the walk can follow`).toBeGreaterThanOrEqual(0);
      expect(data.tables[t.table]?.length ?? 0, t.table).toBe(n);
    }
    const note = data.tables.live_events!.find((e) => e.kind === "note");
    expect(JSON.stringify(note)).toContain("Ana prefers mornings");
    expect(data.tables.leads![0]).toMatchObject({ email: EMAIL, name: "Ana" });
    expect(data.tables.conversations!.some((x) => x.channel === "whatsapp")).toBe(true);
    expect(data.tables.conversations!.map((x) => x.id)).not.toContain(bystander.conversationId);

    const res = await exportVisitorData(c.ctx, { by: "email", value: EMAIL.toUpperCase(), format: "html" });
    expect(res.headers.get("content-type")).toContain("text/html");
    expect(res.headers.get("content-security-policy")).toContain("sandbox");
    const html = await res.text();
    expect(html).not.toContain("<img src=x");
    expect(html).toContain("Hello &lt;img src=x onerror=&quot;alert(1)&quot;&gt; &amp; &quot;quotes&quot;");
    expect(html).toContain("Please call me");
    const json = await exportVisitorData(c.ctx, {
      by: "conversation",
      value: `${PLATFORM}/admin/x/conversations/${ana.conversationId}`,
      format: "json",
    });
    expect(((await json.json()) as { counts: Record<string, number> }).counts.leads).toBe(1);
  });

  it("erasure asks for the handle again, then removes it all in one go and leaves the other visitor alone", async () => {
    await expect(
      eraseVisitorData(c.ctx, { by: "phone", value: PHONE, confirm: "+49 000" }),
    ).rejects.toMatchObject({
      code: "invalid_input",
    });
    const bystanderBefore = await idsOf([bystander.conversationId]);
    const { counts, erasureId } = await eraseVisitorData(c.ctx, {
      by: "phone",
      value: PHONE,
      confirm: ` ${PHONE} `,
    });
    expect(counts.conversations).toBe(2);
    for (const t of await walkVisitorTables(c.w.db))
      expect(await countLinked(c.w.db, t, before), t.table).toBe(0);
    expect((await idsOf([bystander.conversationId])).messageIds).toEqual(bystanderBefore.messageIds);
    expect((await c.rows()).contacts.map((k) => k.address)).toEqual(["15550009999"]);

    // Nothing anywhere names her any more: not her e-mail, number, words, nor the ids or hashes she went by.
    // The audit log keeps the ids of what the team did (a note added to conversation …), which now name nothing.
    const needles = [EMAIL, WA_FROM, "Ana prefers mornings", "Please call me", ...before.visitorIds];
    const textCols = await rowsOf<{ t: string; col: string }>(
      c.w.db.platform,
      sql`select table_name as t, column_name as col from information_schema.columns
           where table_schema = 'public' and data_type in ('text', 'jsonb', 'character varying', 'uuid', 'ARRAY')`,
    );
    for (const { t, col } of textCols)
      for (const needle of needles) {
        const [hit] = await rowsOf<{ n: number }>(
          c.w.db.platform,
          sql`select count(*)::int as n from ${sql.identifier(t)} where ${sql.identifier(col)}::text ilike ${`%${needle}%`}`,
        );
        expect(hit?.n, `${t}.${col} still holds ${needle}`).toBe(0);
      }
    for (const by of ["email", "phone", "conversation"] as const) {
      const value = by === "email" ? EMAIL : by === "phone" ? PHONE : ana.conversationId;
      expect((await findVisitor(c.ctx, { by, value })).found).toBe(false);
    }

    // The webhook says that it happened and how much, without anything personal; the audit log says who.
    const sent = await c.w.db.forTenant(c.tenant.id, (tx) => tx.select().from(webhookDeliveries));
    const erased = sent.filter((d) => d.eventType === "visitor.erased");
    expect(erased).toHaveLength(1);
    expect(erased[0]!.payload).toMatchObject({
      type: "visitor.erased",
      data: { erasure: { id: erasureId, counts } },
    });
    const audit = await c.w.db.forTenant(c.tenant.id, (tx) => tx.select().from(auditLog));
    const entry = audit.find((a) => a.action === "visitor.erased")!;
    expect(entry).toMatchObject({ actorUserId: c.ctx.user.id, target: erasureId, details: { by: "phone" } });
  });

  it("her widget starts afresh: the old token is refused and renewing it gives a new visitor", async () => {
    const history = await historyGet(
      new Request(`${PLATFORM}/api/widget/${key()}/conversations/${ana.conversationId}`, {
        headers: { origin: SITE, authorization: `Bearer ${ana.token}` },
      }),
      { params: Promise.resolve({ key: key(), id: ana.conversationId }) },
    );
    expect(history.status).toBe(401);
    const renewed = await c.w.session(key(), { token: ana.token });
    const { token } = (await renewed.json()) as { token: string };
    const fresh = await widgetTurn(token, "Hello again");
    expect(fresh.conversationId).not.toBe(ana.conversationId);
    const [freshVisitor] = (await idsOf([fresh.conversationId])).visitorIds;
    expect(before.visitorIds).not.toContain(freshVisitor);
    // The other visitor's token still works.
    const theirs = await widgetTurn(bystander.token, "More?", bystander.conversationId);
    expect(theirs.conversationId).toBe(bystander.conversationId);
  });
});
