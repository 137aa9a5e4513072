import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { usageMonth } from "@/lib/db/queries/usage";
import { addMembership } from "@/lib/db/queries/users";
import { conversations, packConfigs, toolRuns, usageMonthly } from "@/lib/db/schema";
import { sendHealthNotices } from "@/lib/health/notices";
import { readPackHealth } from "@/lib/health/pack-health";
import { makeUser } from "../support/admin-world";
import { type ChatWorld, startChatWorld } from "../support/chat-world";
import { startSmtpServer, type TestSmtpServer } from "../support/smtp-server";

// Health that tells the truth: a switched-on pack failing on every visitor's call shows as failing, and its
// owners get one mail about it (not one per failure); the month's budget mails at 80% and at 100%, once each.

let w: ChatWorld;
let smtp: TestSmtpServer;
type Shop = Awaited<ReturnType<ChatWorld["tenant"]>>;

beforeAll(async () => {
  smtp = await startSmtpServer();
  w = await startChatWorld({ MICHI_SMTP_URL: smtp.url, MICHI_DEFAULT_MONTHLY_TOKENS: "1000" });
}, 60_000);
afterAll(async () => {
  await w?.close();
  await smtp?.close();
});

async function shopWithOwner(email: string, budget: number | null = 1_000_000): Promise<Shop> {
  const shop = await w.tenant({ monthlyTokenBudget: budget ?? undefined });
  const owner = await makeUser(w.db, email);
  await addMembership(w.db.platform, shop.id, owner.id, "owner");
  return shop;
}

async function runs(shop: Shop, packId: string, outcomes: [string, Date][]) {
  const [c] = await w.db.platform
    .insert(conversations)
    .values({ tenantId: shop.id, visitorId: "v1" })
    .returning();
  for (const [i, [outcome, at]] of outcomes.entries())
    await w.db.platform.insert(toolRuns).values({
      tenantId: shop.id,
      conversationId: c!.id,
      packId,
      callId: `c${i}`,
      result: outcome === "ok" ? '{"open":true}' : '{"error":"the site answered 404"}',
      resultChars: 20,
      durationMs: 5,
      outcome: outcome as "ok",
      createdAt: at,
    });
}

const ago = (min: number, now = Date.now()) => new Date(now - min * 60_000);
const mailsTo = (to: string) => smtp.received.filter((m) => m.envelope.to.includes(to));

describe("a pack that keeps failing", () => {
  it("shows as failing with its last error, and as working again after a success", async () => {
    const shop = await shopWithOwner("health-a@shop.test");
    await runs(shop, "get_opening_status", [
      ["ok", ago(60)],
      ["error", ago(30)],
      ["invalid_args", ago(25)], // the model's mistake: not the pack's
      ["timeout", ago(20)],
    ]);
    const health = (await w.db.forTenant(shop.id, readPackHealth)).get("get_opening_status")!;
    expect(health).toMatchObject({ state: "failing", runs: 3, failed: 2, streak: 2 });
    expect(health.lastError).toContain("404");
    await runs(shop, "get_opening_status", [["ok", ago(1)]]);
    expect((await w.db.forTenant(shop.id, readPackHealth)).get("get_opening_status")?.state).toBe("ok");
  });

  it("mails the owners once when a switched-on pack has failed for a while, and again after it recovers and fails anew", async () => {
    const owner = "health-b@shop.test";
    const shop = await shopWithOwner(owner);
    await w.db.platform
      .insert(packConfigs)
      .values({ tenantId: shop.id, packId: "get_menu", enabled: true, config: {} });
    const now = Date.now();
    // Failing for five minutes only: not yet "a while".
    await runs(shop, "get_menu", [
      ["error", ago(5, now)],
      ["error", ago(4, now)],
      ["error", ago(3, now)],
    ]);
    await sendHealthNotices(w.db, { now: new Date(now) });
    expect(mailsTo(owner)).toHaveLength(0);

    // Twenty minutes on, still failing: one mail, and the next rounds send nothing more.
    const later = new Date(now + 20 * 60_000);
    await sendHealthNotices(w.db, { now: later });
    await sendHealthNotices(w.db, { now: later });
    await smtp.waitFor(1);
    const first = mailsTo(owner);
    expect(first).toHaveLength(1);
    expect(first[0]!.subject).toMatch(/failing/);
    expect(first[0]!.text).toContain("the site answered 404");
    expect(first[0]!.text).toContain(`/tools/get_menu`);

    // It recovers, then fails again for a while: a new streak, one new mail.
    await runs(shop, "get_menu", [
      ["ok", new Date(now + 21 * 60_000)],
      ["error", new Date(now + 22 * 60_000)],
      ["error", new Date(now + 23 * 60_000)],
      ["error", new Date(now + 24 * 60_000)],
    ]);
    await sendHealthNotices(w.db, { now: new Date(now + 60 * 60_000) });
    expect(mailsTo(owner)).toHaveLength(2);
  });

  it("does not mail about a pack that is switched off", async () => {
    const owner = "health-c@shop.test";
    const shop = await shopWithOwner(owner);
    await runs(shop, "get_weather", [
      ["error", ago(50)],
      ["error", ago(40)],
      ["error", ago(30)],
    ]);
    await sendHealthNotices(w.db);
    expect(mailsTo(owner)).toHaveLength(0);
  });
});

describe("the month's token budget", () => {
  it("mails at 80% and at 100%, once each", async () => {
    const owner = "health-d@shop.test";
    const shop = await shopWithOwner(owner, 10_000);
    const month = usageMonth();
    const use = async (tokens: number) =>
      w.db.platform
        .insert(usageMonthly)
        .values({ tenantId: shop.id, month, promptTokens: tokens, completionTokens: 0 })
        .onConflictDoUpdate({
          target: [usageMonthly.tenantId, usageMonthly.month],
          set: { promptTokens: tokens },
        });
    await use(7_000);
    await sendHealthNotices(w.db);
    expect(mailsTo(owner)).toHaveLength(0);
    await use(8_500);
    await sendHealthNotices(w.db);
    await sendHealthNotices(w.db);
    const n = smtp.received.length;
    await smtp.waitFor(n);
    expect(mailsTo(owner).map((m) => m.subject)).toEqual([
      expect.stringMatching(/80% of this month's token budget/),
    ]);
    await use(10_200);
    await sendHealthNotices(w.db);
    await sendHealthNotices(w.db);
    const subjects = mailsTo(owner).map((m) => m.subject);
    expect(subjects).toHaveLength(2);
    expect(subjects[1]).toMatch(/has used this month's token budget/);
  });
});
