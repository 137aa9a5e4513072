import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkChannelConnection } from "@/lib/channels/check";
import { listChannels } from "@/lib/channels/view";
import { type Channel, channelConnections } from "@/lib/db/schema";
import { textUpdate } from "../fixtures/channels/telegram/updates";
import { textMessage } from "../fixtures/channels/whatsapp/webhooks";
import { type ChannelWorld, eventually, startChannelWorld } from "../support/channel-world";

// A wrong or rotated app secret makes every delivery fail with 401. The connection keeps why (time, a fixed
// reason and how many), written at most once a minute however many forged requests arrive and never with
// anything of the refused body; Check connection and the Channels page say it in words, and the next good
// delivery clears it.

let c: ChannelWorld;
beforeAll(async () => {
  c = await startChannelWorld();
  c.w.fake.setRules([{ match: "", steps: [{ type: "text", text: "Hello." }] }]);
});
afterAll(() => c?.close());

const opts = () => ({ graphBaseUrl: c.graph.baseUrl, telegramBaseUrl: c.telegram.baseUrl });
const connection = async (channel: Channel) =>
  (
    await c.w.db.forTenant(c.tenant.id, (tx) =>
      tx.select().from(channelConnections).where(eq(channelConnections.channel, channel)),
    )
  )[0]!;
/** What a minute's wait does, without waiting: this process's last write and the row's are a minute older. */
async function aMinuteLater(channel: Channel) {
  const row = await connection(channel);
  const pending = (globalThis as unknown as Record<string, Map<string, { wroteAt: number }>>)
    .__michiChannelRefusals;
  const p = pending?.get(row.id);
  if (p) p.wroteAt -= 61_000;
  if (row.lastRefusedAt)
    await c.w.db.platform
      .update(channelConnections)
      .set({ lastRefusedAt: new Date(row.lastRefusedAt.getTime() - 61_000) })
      .where(eq(channelConnections.id, row.id));
}

describe("refused WhatsApp deliveries", () => {
  it("records a flood of forged deliveries once a minute, with nothing of their bodies", async () => {
    const before = await c.rows();
    const forged = textMessage("FORGED-BODY-4242 send me the secrets", { id: "wamid.FORGED-4242" });
    for (let i = 0; i < 5; i++)
      expect((await c.post(forged, { secret: "not-the-app-secret-at-all" })).status).toBe(401);

    const row = await connection("whatsapp");
    // One write for five refusals: the first is recorded, the other four wait for the next minute.
    expect(row.refusedCount).toBe(1);
    expect(row.lastRefusedReason).toBe("bad_signature");
    expect(row.lastRefusedAt).toBeInstanceOf(Date);
    const firstAt = row.lastRefusedAt!.getTime();
    expect(JSON.stringify(row)).not.toMatch(/FORGED|4242/);
    // Nothing else is stored for a refused delivery.
    const after = await c.rows();
    expect(after.inbound).toHaveLength(before.inbound.length);
    expect(after.messages).toHaveLength(before.messages.length);
    expect(after.conversations).toHaveLength(before.conversations.length);
    expect(JSON.stringify(after)).not.toMatch(/FORGED/);

    const check = await checkChannelConnection(c.ctx, "whatsapp", opts());
    expect(check.ok).toBe(false);
    expect(check.lines.join("\n")).toContain(
      "Meta's last delivery was refused: its signature does not match the app secret you saved. Copy the App secret from your Meta app",
    );

    // Within the minute, more refusals write nothing.
    await c.post(forged, { secret: null });
    expect((await connection("whatsapp")).lastRefusedAt!.getTime()).toBe(firstAt);
    expect((await connection("whatsapp")).refusedCount).toBe(1);

    // A minute later the next refusal writes the count the minute gathered (4 + 1 + this one).
    await aMinuteLater("whatsapp");
    expect((await c.post(forged, { secret: null })).status).toBe(401);
    const later = await connection("whatsapp");
    expect(later.refusedCount).toBe(7);
    expect(later.lastRefusedReason).toBe("missing_signature");
    const words = (await checkChannelConnection(c.ctx, "whatsapp", opts())).lines.join("\n");
    expect(words).toContain("Meta's last 7 deliveries were refused: they carried no signature");
    expect(words).not.toContain("Meta last delivered a message at");

    const page = (await listChannels(c.ctx)).channels.find((v) => v.channel === "whatsapp")!;
    expect(page.refused?.count).toBe(7);
    expect(page.refused?.words).toContain("Meta's last 7 deliveries were refused");
    expect(JSON.stringify(page)).not.toContain("not-the-app-secret-at-all");
  });

  it("is cleared by the next good delivery, which is answered", async () => {
    expect((await connection("whatsapp")).lastRefusedAt).not.toBeNull();
    const res = await c.post(
      textMessage("hello", {
        id: "wamid.GOOD-1",
        from: "15550188001",
        timestamp: Math.floor(Date.now() / 1000),
      }),
    );
    expect(res.status).toBe(200);
    const row = await connection("whatsapp");
    expect(row.lastRefusedAt).toBeNull();
    expect(row.lastRefusedReason).toBeNull();
    expect(row.refusedCount).toBe(0);
    await eventually(async () => expect(c.graph.sent.some((s) => s.to === "15550188001")).toBe(true));
    const check = await checkChannelConnection(c.ctx, "whatsapp", opts());
    expect(check.ok).toBe(true);
    expect(check.lines.join("\n")).not.toContain("refused");
    expect((await listChannels(c.ctx)).channels.find((v) => v.channel === "whatsapp")!.refused).toBeNull();

    // A refusal after a good delivery is recorded at once, not a minute after the last one.
    expect((await c.post(textMessage("x"), { secret: "wrong" })).status).toBe(401);
    expect((await connection("whatsapp")).refusedCount).toBe(1);
  });
});

describe("refused Telegram deliveries", () => {
  it("says when deliveries carry a wrong secret_token, and a good one clears it", async () => {
    const update = textUpdate("FORGED-TG-777", { chatId: 5_550_777_001, updateId: 990_001 });
    expect((await c.postTelegram(update, { secret: "someone-elses-secret" })).status).toBe(401);
    expect((await c.postTelegram(update, { secret: null })).status).toBe(401);
    const row = await connection("telegram");
    expect(row.refusedCount).toBe(1);
    expect(row.lastRefusedReason).toBe("wrong_secret_token");
    expect(JSON.stringify(row)).not.toMatch(/FORGED|someone-elses/);
    expect((await c.rows()).inbound.some((i) => i.externalId === "990001")).toBe(false);

    const check = await checkChannelConnection(c.ctx, "telegram", opts());
    expect(check.ok).toBe(false);
    expect(check.lines.join("\n")).toContain(
      "Telegram's last delivery was refused: it did not carry the secret_token this connection registered",
    );

    expect(
      (await c.postTelegram(textUpdate("hi", { chatId: 5_550_777_002, updateId: 990_002 }))).status,
    ).toBe(200);
    expect((await connection("telegram")).lastRefusedAt).toBeNull();
    expect((await checkChannelConnection(c.ctx, "telegram", opts())).ok).toBe(true);
  });
});
