import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Role, TenantContext } from "@/lib/auth/access";
import { type InboxFilters, listLeads } from "@/lib/db/queries/leads";
import {
  conversations,
  leads,
  messageFeedback,
  messages,
  packConfigs,
  type tenants,
  toolRuns,
} from "@/lib/db/schema";
import { markUnansweredHandled, unansweredReport } from "@/lib/insights/unanswered";
import { exportLeads } from "@/lib/leads/export";
import { setLeadHandled } from "@/lib/leads/inbox";
import { makeTenant, makeUser } from "../support/admin-world";
import { freshDb, type TestDb } from "../support/db";

// The admin side of issue 16 against a real database: the unanswered-questions report (trigram groups, why,
// pack suggestions, marking handled), the Inbox's status change and its export.

let t: TestDb;
let shop: typeof tenants.$inferSelect;
let owner: Awaited<ReturnType<typeof makeUser>>;
let viewer: Awaited<ReturnType<typeof makeUser>>;
let clock = Date.parse("2026-11-20T10:00:00Z");

const ctx = (role: Role): TenantContext => ({
  user: { ...(role === "viewer" ? viewer : owner), isOperator: false, mustChangePassword: false },
  tenant: shop,
  role,
  db: t.handle,
});

/** One visitor question and its answer; returns both ids. */
async function turn(
  question: string,
  answer: {
    status?: "complete" | "partial" | "failed";
    reason?: string;
    rating?: "up" | "down";
    pack?: string;
  } = {},
) {
  const [c] = await t.handle.platform
    .insert(conversations)
    .values({ tenantId: shop.id, visitorId: `v-${clock}` })
    .returning();
  clock += 60_000;
  const [q] = await t.handle.platform
    .insert(messages)
    .values({
      tenantId: shop.id,
      conversationId: c!.id,
      role: "user",
      content: question,
      createdAt: new Date(clock),
    })
    .returning();
  clock += 1000;
  const [a] = await t.handle.platform
    .insert(messages)
    .values({
      tenantId: shop.id,
      conversationId: c!.id,
      role: "assistant",
      content: answer.status === "failed" ? "" : "Some answer.",
      status: answer.status ?? "complete",
      reason: answer.reason ?? null,
      createdAt: new Date(clock),
    })
    .returning();
  if (answer.rating)
    await t.handle.platform
      .insert(messageFeedback)
      .values({ tenantId: shop.id, conversationId: c!.id, messageId: a!.id, rating: answer.rating });
  if (answer.pack)
    await t.handle.platform.insert(toolRuns).values({
      tenantId: shop.id,
      conversationId: c!.id,
      messageId: a!.id,
      packId: answer.pack,
      callId: "c1",
      result: "{}",
      resultChars: 2,
      resultTokens: 1,
      durationMs: 1,
      outcome: "ok",
    });
  return { conversationId: c!.id, questionId: q!.id, answerId: a!.id };
}

const report = () =>
  t.handle.forTenant(shop.id, (tx) => unansweredReport(tx, shop.id, { now: new Date(clock + 60_000) }));

beforeAll(async () => {
  t = await freshDb();
  owner = await makeUser(t.handle, "owner@shop.test");
  viewer = await makeUser(t.handle, "viewer@shop.test");
  shop = await makeTenant(t.handle, "shop", [
    [owner, "owner"],
    [viewer, "viewer"],
  ]);
  await t.handle.platform
    .insert(packConfigs)
    .values({ tenantId: shop.id, packId: "get_menu", enabled: true });
});
afterAll(() => t?.close());

describe("unanswered questions", () => {
  let weather: Awaited<ReturnType<typeof turn>>;

  beforeAll(async () => {
    await turn("Do you deliver to Osaka?", { status: "failed", reason: "empty" });
    await turn("do you deliver to osaka", { status: "partial", reason: "round_cap" });
    await turn("Do you deliver to Osaka??", { rating: "down" });
    weather = await turn("Will it rain tomorrow afternoon? What is the weather forecast?", {
      status: "failed",
      reason: "model_error",
    });
    await turn("Can I speak to the manager?", { pack: "request_human" });
    // Handled well, or not the bot's fault: not in the report.
    await turn("Do you deliver to Osaka? thanks", { rating: "up" });
    await turn("What is on the menu?");
    await turn("Hello?", { status: "failed", reason: "disconnected" });
  });

  it("groups near-identical questions with counts, reasons, the latest date and the conversations", async () => {
    const groups = await report();
    expect(groups.map((g) => [g.question, g.count])).toEqual([
      ["Do you deliver to Osaka??", 3],
      ["Can I speak to the manager?", 1],
      ["Will it rain tomorrow afternoon? What is the weather forecast?", 1],
    ]);
    const [osaka] = groups;
    expect(new Set(osaka!.why)).toEqual(new Set(["empty", "round_cap", "rated_down"]));
    expect(osaka!.conversations).toHaveLength(3);
    expect(groups[1]!.why).toEqual(["handoff"]);
    // The most asked come first, even when a single question is newer.
    expect(groups[2]!.latest.getTime()).toBeGreaterThan(osaka!.latest.getTime());
  });

  it("tells a model outage apart, and leaves out a failure the visitor retried into an answer", async () => {
    const groups = await report();
    expect(groups.find((g) => g.question.startsWith("Will it rain"))!.why).toEqual(["outage"]);
    const retried = await turn("Is the terrace heated in winter?", {
      status: "failed",
      reason: "model_busy",
    });
    expect((await report()).map((g) => g.question)).toContain("Is the terrace heated in winter?");
    // Retry answers the same stored question again, with no new visitor message in between.
    clock += 1000;
    await t.handle.platform.insert(messages).values({
      tenantId: shop.id,
      conversationId: retried.conversationId,
      role: "assistant",
      content: "Yes, with heaters.",
      status: "complete",
      createdAt: new Date(clock),
    });
    expect((await report()).map((g) => g.question)).not.toContain("Is the terrace heated in winter?");
  });

  it("suggests a switched-off pack whose description matches the question", async () => {
    const groups = await report();
    const rain = groups.find((g) => g.question.startsWith("Will it rain"))!;
    expect(rain.suggestion?.packId).toBe("get_weather");
    await t.handle.platform
      .insert(packConfigs)
      .values({ tenantId: shop.id, packId: "get_weather", enabled: true });
    const after = (await report()).find((g) => g.question.startsWith("Will it rain"))!;
    expect(after.suggestion?.packId).not.toBe("get_weather");
  });

  it("suggests no pack on a word of time alone: rye bread today is no question for the weather", async () => {
    await t.handle.platform
      .delete(packConfigs)
      .where(and(eq(packConfigs.tenantId, shop.id), eq(packConfigs.packId, "get_weather")));
    const rye = await turn("Do you have rye bread today?", { status: "failed", reason: "empty" });
    const group = (await report()).find((g) => g.question === "Do you have rye bread today?")!;
    expect(group.suggestion).toBeNull();
    expect((await report()).find((g) => g.question.startsWith("Will it rain"))!.suggestion?.packId).toBe(
      "get_weather",
    );
    await markUnansweredHandled(ctx("owner"), [rye.questionId]);
  });

  it("a viewer may not mark a group handled; an owner may, and the group leaves the report", async () => {
    await expect(markUnansweredHandled(ctx("viewer"), [weather.questionId])).rejects.toMatchObject({
      code: "forbidden",
    });
    expect(await markUnansweredHandled(ctx("owner"), [weather.questionId])).toBe(1);
    expect((await report()).map((g) => g.question)).not.toContain(
      "Will it rain tomorrow afternoon? What is the weather forecast?",
    );
    // The same question asked again fails again: it is back on the list.
    await turn("Will it rain tomorrow afternoon? What is the weather forecast?", {
      status: "failed",
      reason: "empty",
    });
    expect((await report()).map((g) => g.question)).toContain(
      "Will it rain tomorrow afternoon? What is the weather forecast?",
    );
  });
});

describe("the Inbox", () => {
  let leadId: string;

  beforeAll(async () => {
    const [row] = await t.handle.platform
      .insert(leads)
      .values({ tenantId: shop.id, name: "=HYPERLINK(1)", email: "ana@example.org", message: "Call me" })
      .returning();
    leadId = row!.id;
    await t.handle.platform.insert(leads).values({ tenantId: shop.id, kind: "handoff", source: "assistant" });
  });

  const list = (f: InboxFilters) => t.handle.forTenant(shop.id, (tx) => listLeads(tx, shop.id, f));

  it("filters by status and kind and searches the details", async () => {
    expect((await list({})).items).toHaveLength(2);
    expect((await list({ kind: "handoff" })).items).toHaveLength(1);
    expect((await list({ q: "ANA@" })).items.map((l) => l.id)).toEqual([leadId]);
    expect((await list({ q: "%" })).items).toEqual([]);
  });

  it("marks a request handled with who and when; a viewer may not", async () => {
    await expect(setLeadHandled(ctx("viewer"), { id: leadId, status: "handled" })).rejects.toMatchObject({
      code: "forbidden",
    });
    await setLeadHandled(ctx("owner"), { id: leadId, status: "handled" });
    const [row] = (await list({ status: "handled" })).items;
    expect(row).toMatchObject({ id: leadId, handledBy: owner.id, handledByLabel: "owner@shop.test" });
    expect(row!.handledAt).toBeInstanceOf(Date);
    await setLeadHandled(ctx("owner"), { id: leadId, status: "new" });
    expect((await list({ status: "handled" })).items).toEqual([]);
  });

  it("exports as CSV with spreadsheet formulas neutralised, and as JSON", async () => {
    const csv = await (await exportLeads(ctx("owner"), new URL("http://x/export?format=csv"))).text();
    expect(csv.split("\r\n")[0]).toMatch(/^id,created_at,kind,source,status,name,email,phone,message/);
    expect(csv).toContain("'=HYPERLINK(1)");
    expect(csv).toContain("ana@example.org");
    const json = (await (await exportLeads(ctx("owner"), new URL("http://x/export?format=json"))).json()) as {
      requests: { email: string }[];
    };
    expect(json.requests.map((r) => r.email)).toContain("ana@example.org");
  });
});
