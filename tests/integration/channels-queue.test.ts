import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { queueContacts, queuedSoFar, SWEEP_AFTER_MS, sweepUnqueuedInbound } from "@/lib/channels/enqueue";
import { type JobQueue, setProcessQueue } from "@/lib/queue";
import { textMessage } from "../fixtures/channels/whatsapp/webhooks";
import { eventually } from "../support/channel-world";
import { startWhatsAppWorld, textOf, type WhatsAppWorld } from "../support/whatsapp-world";

// The webhook stores a message and answers 200 before its job is queued (src/lib/channels/enqueue.ts). These
// show what that must not cost: a process that dies between the commit and the queueing loses nothing (the
// sweep queues the message), and a job too many (the sweep and a late queueing, Meta's retries) answers
// nothing twice. "Answered once" is checked without waiting a fixed time: the same person's next message is
// answered after every earlier one (one person, oldest first), so once it is answered, a second answer to
// the first would already have been sent.

const PREFIX = "033";
let c: WhatsAppWorld;

/** The process's queue as a process that dies right after the webhook's commit leaves it: nothing queued. */
const dying = (q: JobQueue): JobQueue => ({
  ...q,
  sendIn: async () => {
    throw new Error("the process died before queueing");
  },
});

beforeAll(async () => {
  c = await startWhatsAppWorld(PREFIX);
});
afterAll(() => c?.close());
beforeEach(() => {
  c.graph.sent.length = 0;
  setProcessQueue(c.queue);
});

const inboundOf = async (id: string) => (await c.rows()).inbound.find((i) => i.externalId === id);

/** Sends the person a last message and waits for its answer: every earlier answer has gone out by then. */
async function settle(p: { from: string; timestamp: number }, text: string): Promise<string[]> {
  const last = {
    id: `${p.from}-last-${Math.random().toString(36).slice(2)}`,
    from: p.from,
    timestamp: p.timestamp + 1,
  };
  expect((await c.post(textMessage(text, last))).status).toBe(200);
  await eventually(async () => expect((await inboundOf(last.id))?.status).toBe("done"));
  await eventually(async () => expect(c.sentTo(p.from).map(textOf)).toContain("Answer two."));
  return c.sentTo(p.from).map((s) => textOf(s) ?? "");
}

describe("a message stored but never queued (the process died in between)", () => {
  it("is queued by the sweep and answered once, even when Meta retries it", async () => {
    const p = c.fresh();
    const delivery = textMessage("the first question", p);
    setProcessQueue(dying(c.queue));
    expect((await c.post(delivery)).status).toBe(200);
    await queuedSoFar();
    // Stored (Meta was told 200), with no job.
    expect(await inboundOf(p.id)).toMatchObject({ status: "pending", queuedAt: null });

    // The next process starts.
    setProcessQueue(c.queue);
    // A message younger than the sweep's delay may still be on its way to the queue: left alone.
    expect(SWEEP_AFTER_MS).toBeGreaterThan(1000);
    expect(await sweepUnqueuedInbound(c.w.db)).toBe(0);
    expect((await inboundOf(p.id))?.queuedAt).toBeNull();
    // Meta's retry of the stored delivery inserts nothing (and so queues nothing)…
    expect((await c.post(delivery)).status).toBe(200);
    await queuedSoFar();
    expect((await inboundOf(p.id))?.queuedAt).toBeNull();
    // …and the sweep, once the message is old enough, queues it.
    expect(await sweepUnqueuedInbound(c.w.db, { olderThanMs: 0 })).toBe(1);
    await eventually(async () => expect(c.sentTo(p.from).map(textOf)).toEqual(["Answer one."]));
    expect(await inboundOf(p.id)).toMatchObject({ status: "done" });
    expect((await inboundOf(p.id))?.queuedAt).not.toBeNull();

    // Another retry and another sweep after the answer: nothing more.
    expect((await c.post(delivery)).status).toBe(200);
    expect(await sweepUnqueuedInbound(c.w.db, { olderThanMs: 0 })).toBe(0);
    expect(await settle(p, "the second question")).toEqual(["Answer one.", "Answer two."]);
    const rows = await c.rows();
    const conv = rows.contacts.find((k) => k.address === p.from)!.conversationId;
    expect(rows.messages.filter((m) => m.conversationId === conv).map((m) => [m.role, m.content])).toEqual([
      ["user", "the first question"],
      ["assistant", "Answer one."],
      ["user", "the second question"],
      ["assistant", "Answer two."],
    ]);
  });

  it("two jobs for the same message (the sweep and a late queueing) answer it once", async () => {
    const p = c.fresh();
    setProcessQueue(dying(c.queue));
    expect((await c.post(textMessage("the first question", p))).status).toBe(200);
    await queuedSoFar();
    setProcessQueue(c.queue);
    const row = (await inboundOf(p.id))!;
    expect(row.queuedAt).toBeNull();
    // The late queueing of the dying process's successor and the sweep, at the same moment.
    await Promise.all([
      queueContacts(c.w.db, c.queue, c.tenant.id, row.connectionId, [row.contact]),
      sweepUnqueuedInbound(c.w.db, { olderThanMs: 0 }),
    ]);
    expect(await settle(p, "the second question")).toEqual(["Answer one.", "Answer two."]);
  });
});

describe("a message queued after the acknowledgement", () => {
  it("is marked queued, so the sweep leaves it alone", async () => {
    const p = c.fresh();
    expect((await c.post(textMessage("the first question", p))).status).toBe(200);
    await queuedSoFar();
    expect((await inboundOf(p.id))?.queuedAt).not.toBeNull();
    expect(await sweepUnqueuedInbound(c.w.db, { olderThanMs: 0 })).toBe(0);
    expect(await settle(p, "the second question")).toEqual(["Answer one.", "Answer two."]);
  });
});
