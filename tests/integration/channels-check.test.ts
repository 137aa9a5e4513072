import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkChannelConnection } from "@/lib/channels/check";
import { connectWhatsApp } from "@/lib/channels/connect";
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

    await connectWhatsApp(c.ctx, {
      phoneNumberId: c.graph.phoneNumberId,
      accessToken: "EAAG-a-token-meta-no-longer-knows",
      appSecret: "",
      verifyToken: "",
    });
    const bad = await checkChannelConnection(c.ctx, "whatsapp", opts());
    expect(bad.ok).toBe(false);
    expect(bad.lines[0]).toMatch(/token/i);
    expect(bad.lines.join("\n")).not.toContain("EAAG-a-token-meta-no-longer-knows");
  });

  it("Telegram: says when Telegram cannot reach the webhook", async () => {
    expect((await checkChannelConnection(c.ctx, "telegram", opts())).ok).toBe(true);
    c.telegram.setDeliveryError("Connection refused");
    const bad = await checkChannelConnection(c.ctx, "telegram", opts());
    expect(bad.ok).toBe(false);
    expect(bad.lines.join("\n")).toContain("Telegram could not reach the webhook: Connection refused");
  });
});
