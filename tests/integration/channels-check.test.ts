import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkChannelConnection } from "@/lib/channels/check";
import { connectWhatsApp } from "@/lib/channels/connect";
import { channelConnections } from "@/lib/db/schema";
import { type ChannelWorld, startChannelWorld } from "../support/channel-world";

// "Check connection" on the Channels page asks the provider with the stored token (the fake Graph and Bot
// APIs here) and says in words what is wrong.

let c: ChannelWorld;
beforeAll(async () => {
  c = await startChannelWorld();
});
afterAll(() => c?.close());

const opts = () => ({ graphBaseUrl: c.graph.baseUrl, telegramBaseUrl: c.telegram.baseUrl });

describe("check connection", () => {
  it("WhatsApp: a working token names the number; a wrong one says so", async () => {
    const ok = await checkChannelConnection(c.ctx, "whatsapp", opts());
    expect(ok.ok).toBe(true);
    expect(ok.lines[0]).toContain("+1 555-010-1234");
    expect(ok.lines.join("\n")).toContain("No message from Meta has arrived yet");

    // Meta revokes the token after it was saved: the check names the problem and never shows the token.
    c.graph.failNext("expired-token");
    const bad = await checkChannelConnection(c.ctx, "whatsapp", opts());
    expect(bad.ok).toBe(false);
    expect(bad.lines[0]).toMatch(/token/i);
    expect(bad.lines.join("\n")).not.toContain(c.graph.accessToken);
  });

  it("WhatsApp: saving asks Meta first; a token or number it refuses is not saved (#45 item 6)", async () => {
    const form = { phoneNumberId: c.graph.phoneNumberId, appSecret: "", verifyToken: "" };
    const saved = await connectWhatsApp(c.ctx, { ...form, accessToken: c.graph.accessToken }, opts());
    expect(saved).toBe("Meta confirmed the access token for +1 555-010-1234.");

    const stale = connectWhatsApp(
      c.ctx,
      { ...form, accessToken: "EAAG-a-token-meta-no-longer-knows" },
      opts(),
    );
    await expect(stale).rejects.toMatchObject({
      code: "invalid_input",
      details: { fieldErrors: { accessToken: [expect.stringMatching(/expired or was revoked/)] } },
    });
    const wrongNumber = connectWhatsApp(
      c.ctx,
      { ...form, phoneNumberId: "109999999999999", accessToken: "" },
      opts(),
    );
    await expect(wrongNumber).rejects.toMatchObject({
      details: { fieldErrors: { phoneNumberId: [expect.stringMatching(/phone number id does not exist/)] } },
    });
    // Nothing of either reached the stored connection: it still works as saved.
    expect((await checkChannelConnection(c.ctx, "whatsapp", opts())).ok).toBe(true);

    // Meta out of reach: saved, and the answer says the check is still to do.
    c.graph.failNext("server-error");
    const later = await connectWhatsApp(c.ctx, { ...form, accessToken: c.graph.accessToken }, opts());
    expect(later).toMatch(
      /^Meta could not be reached to check the access token .*use Check connection later\.$/,
    );
  });

  it("WhatsApp: the last delivery and the last refusal are told in the business's time zone, not as UTC", async () => {
    const whatsapp = eq(channelConnections.channel, "whatsapp");
    const set = (v: Partial<typeof channelConnections.$inferInsert>) =>
      c.w.db.platform.update(channelConnections).set(v).where(whatsapp);
    // 23:30 UTC on 1 March is 08:30 on 2 March in Tokyo; 06:05 UTC on 3 March is 15:05 there.
    await set({ lastInboundAt: new Date("2026-03-01T23:30:00Z") });
    const tokyo = { ...c.ctx, tenant: { ...c.ctx.tenant, timeZone: "Asia/Tokyo" } };
    const delivered = (await checkChannelConnection(tokyo, "whatsapp", opts())).lines.join("\n");
    expect(delivered).toMatch(/Meta last delivered a message at 2 Mar 2026, 08:30 (GMT\+9|JST)\./);
    expect(delivered).not.toContain("2026-03-01T23:30");

    await set({
      lastRefusedAt: new Date("2026-03-03T06:05:00Z"),
      lastRefusedReason: "missing_signature",
      refusedCount: 1,
    });
    try {
      const refused = (await checkChannelConnection(tokyo, "whatsapp", opts())).lines.join("\n");
      expect(refused).toMatch(/Last refused at 3 Mar 2026, 15:05 (GMT\+9|JST)\./);
      expect(refused).toMatch(/passed the check arrived at 2 Mar 2026, 08:30/);
      expect(refused).not.toMatch(/\d{4}-\d{2}-\d{2}T/);
    } finally {
      await set({ lastRefusedAt: null, lastRefusedReason: null, refusedCount: 0, lastInboundAt: null });
    }
  });

  it("Telegram: says when Telegram cannot reach the webhook", async () => {
    expect((await checkChannelConnection(c.ctx, "telegram", opts())).ok).toBe(true);
    c.telegram.setDeliveryError("Connection refused");
    const bad = await checkChannelConnection(c.ctx, "telegram", opts());
    expect(bad.ok).toBe(false);
    expect(bad.lines.join("\n")).toContain("Telegram could not reach the webhook: Connection refused");
  });
});
