import { eq } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { channelConnections } from "@/lib/db/schema";
import { imageMessage, textMessage } from "../fixtures/channels/whatsapp/webhooks";
import { eventually } from "../support/channel-world";
import { startWhatsAppWorld, textOf, type WhatsAppWorld } from "../support/whatsapp-world";

// What WhatsApp replies follow besides the turn itself: the 24-hour window, media, STOP, send retries and
// lasting failures, the typing indicator during a tool call, and long answers split in order.

const PREFIX = "022";
let c: WhatsAppWorld;
const fresh = () => c.fresh();
const sentTo = (to: string) => c.sentTo(to);
const outboundOf = (from: string) => c.outboundOf(from);

beforeAll(async () => {
  c = await startWhatsAppWorld(PREFIX);
});
afterAll(() => c?.close());
beforeEach(() => {
  c.graph.sent.length = 0;
  c.graph.reads.length = 0;
});

describe("the 24-hour window, media, opt-out, failures and tools", () => {
  it("outside the 24-hour window nothing is sent and the connection says why", async () => {
    const p = fresh();
    // Delivered late (Meta retried for more than a day): the person wrote 25 hours ago.
    await c.post(textMessage("hello from yesterday", { ...p, timestamp: p.timestamp - 25 * 3600 }));
    await eventually(async () =>
      expect(await outboundOf(p.from)).toMatchObject([{ status: "outside_window", errorCode: "131047" }]),
    );
    expect(sentTo(p.from)).toHaveLength(0);
    // By channel: the business has a Telegram connection too, and rows come back in no promised order.
    const [conn] = await c.w.db.forTenant(c.tenant.id, (tx) =>
      tx.select().from(channelConnections).where(eq(channelConnections.channel, "whatsapp")),
    );
    expect(conn!.lastError).toContain("24 hours");
  });

  it("a picture is answered politely without a turn", async () => {
    const p = fresh();
    c.w.fake.requests.length = 0;
    await c.post(imageMessage("look at this", p));
    const [sent] = await eventually(async () => {
      const s = sentTo(p.from);
      expect(s).toHaveLength(1);
      return s;
    });
    expect(textOf(sent!)).toBe("Sorry, I can only read text messages. Could you write your question?");
    expect(c.w.fake.requests).toHaveLength(0);
  });

  it("STOP is honoured: confirmed once, then nothing is answered until START", async () => {
    const p = fresh();
    const at = (n: number) => ({ id: `${p.id}-${n}`, from: p.from, timestamp: p.timestamp + n });
    await c.post(textMessage("STOP", at(0)));
    await eventually(async () => expect(sentTo(p.from)).toHaveLength(1));
    expect(textOf(sentTo(p.from)[0]!)).toContain("START");
    await c.post(textMessage("hello?", at(1)));
    await eventually(async () =>
      expect((await c.rows()).inbound.find((i) => i.externalId === `${p.id}-1`)?.status).toBe("skipped"),
    );
    expect(sentTo(p.from)).toHaveLength(1);
    await c.post(textMessage("start", at(2)));
    await eventually(async () => expect(sentTo(p.from)).toHaveLength(2));
    expect(textOf(sentTo(p.from)[1]!)).toBe("Welcome back! How can I help?");
  });

  it("a failed send is retried, and recorded with Meta's code when it keeps failing", async () => {
    const p = fresh();
    c.graph.failNext("server-error", 1);
    await c.post(textMessage("hello retry", p));
    await eventually(async () => expect(sentTo(p.from)).toHaveLength(1));
    await eventually(async () =>
      expect(await outboundOf(p.from)).toMatchObject([{ status: "sent", attempts: 2 }]),
    );

    const q = fresh();
    // The worker's own try and every retry of the job (limit 2) fail.
    c.graph.failNext("server-error", 4);
    await c.post(textMessage("hello failing", q));
    await eventually(
      async () =>
        expect(await outboundOf(q.from)).toMatchObject([
          { status: "failed", errorCode: "131000", attempts: 4 },
        ]),
      40_000,
    );
    expect(sentTo(q.from)).toHaveLength(0);
    c.graph.failNext("server-error", 0);
  }, 60_000);

  it("an undeliverable number is recorded at once, without retries", async () => {
    const p = fresh();
    c.graph.failNext("undeliverable", 1);
    await c.post(textMessage("hello undeliverable", p));
    await eventually(async () =>
      expect(await outboundOf(p.from)).toMatchObject([
        { status: "failed", errorCode: "131026", attempts: 1 },
      ]),
    );
  });

  it("a tool call shows WhatsApp's typing indicator while it runs", async () => {
    const p = fresh();
    await c.post(textMessage("what are your hours", p));
    const [sent] = await eventually(async () => {
      const s = sentTo(p.from);
      expect(s).toHaveLength(1);
      return s;
    });
    expect(textOf(sent!)).toBe("From 9 to 5.");
    expect(c.graph.reads).toContainEqual({ messageId: p.id, typing: true });
    const before = c.graph.reads.length;
    const q = fresh();
    await c.post(textMessage("hello without tools", q));
    await eventually(async () => expect(sentTo(q.from)).toHaveLength(1));
    expect(c.graph.reads.slice(before).filter((r) => r.messageId === q.id)).toHaveLength(0);
  });

  it("a long answer is split under 4,096 characters, in order", async () => {
    const p = fresh();
    await c.post(textMessage("a long one please", p));
    const sent = await eventually(async () => {
      const s = sentTo(p.from);
      expect(s.length).toBeGreaterThan(1);
      expect(textOf(s.at(-1)!)!.endsWith("The end.")).toBe(true);
      return s;
    });
    const texts = sent.map((s) => textOf(s)!);
    expect(texts.every((t) => t.length <= 4096)).toBe(true);
    // A first answer: its last part carries the starters, so it is cut under Meta's 1,024 for buttons.
    expect(sent.at(-1)!.type).toBe("interactive");
    expect(texts.at(-1)!.length).toBeLessThanOrEqual(1024);
    expect(sent.slice(0, -1).every((s) => s.type === "text")).toBe(true);
  });

  it("a message that keeps failing is marked failed and does not hold back the person's next one", async () => {
    const p = fresh();
    c.breakTurns(true);
    try {
      await c.post(textMessage("hello broken", p));
      await eventually(
        async () =>
          expect((await c.rows()).inbound.find((i) => i.externalId === p.id)?.status).toBe("failed"),
        40_000,
      );
    } finally {
      c.breakTurns(false);
    }
    await c.post(textMessage("hello again", { ...p, id: `${p.id}-next`, timestamp: p.timestamp + 1 }));
    await eventually(async () => expect(sentTo(p.from)).toHaveLength(1));
    expect(textOf(sentTo(p.from)[0]!)).toBe("Hello.");
  }, 60_000);
});
