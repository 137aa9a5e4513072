import { expect, it } from "vitest";
import { cardReply, isActionId, readActionId } from "@/lib/channels/actions";
import { adapterFor } from "@/lib/channels/adapter";
import type { ApiBases, RawDelivery } from "@/lib/channels/adapter-types";
import { inboundText, PERSON_ID } from "@/lib/channels/buttons";
import { openChannelSecret } from "@/lib/channels/identity";
import { refusalWords } from "@/lib/channels/refusals";
import type { ConnectionRow } from "@/lib/db/queries/channels";
import type { InboundRow } from "@/lib/db/queries/channels-messages";
import type { BotSettings } from "@/lib/db/schema";

// The cases every channel adapter passes, as `npm run check:packs` runs every pack through the same checks:
// each channel brings a kit (its connection, a fake provider, and how its provider delivers and signs), and
// the cases look its adapter up in the channels' table by name, as the product does.

/** A message the fake provider accepted: its text and the buttons under it. */
export type Sent = { to: string; text: string; buttons: { id: string; label: string }[] };

export type ConformanceKit = {
  channel: string;
  conn: ConnectionRow;
  api: ApiBases;
  /** A person's address on the channel. */
  address: string;
  /** The provider's delivery of a person's text. */
  textDelivery(text: string): unknown;
  /** The provider's delivery of a tap on a button we sent. */
  tapDelivery(button: { id: string; label: string }): unknown;
  /** The delivery's bytes and headers: signed as the provider does, with a wrong secret, or with none. */
  sign(json: unknown, how: "right" | "wrong" | "none"): Promise<RawDelivery>;
  /** What the fake provider accepted, in order. */
  sent(): Sent[];
  /** Whether the provider was asked to show "typing…" (null: the channel has no such hint). */
  typed(): boolean | null;
};

const BOT: BotSettings = { language: "en", starters: ["Opening hours", "Where are you?", "Prices"] };

const asInbound = (kit: ConformanceKit, json: unknown): InboundRow => {
  const [m] = adapterFor(kit.channel).parse(kit.conn, json).inbound;
  if (!m) throw new Error("the delivery was not read");
  return { ...m, id: "00000000-0000-4000-8000-000000000001" } as unknown as InboundRow;
};

export function conformanceCases(kitOf: () => ConformanceKit): void {
  const secret = (k: ConformanceKit) => (field: Parameters<typeof openChannelSecret>[3]) =>
    openChannelSecret(k.conn.secrets, k.conn.tenantId, k.conn.id, field);

  it("accepts a delivery that passes the provider's check and refuses one that does not", async () => {
    const k = kitOf();
    const a = adapterFor(k.channel);
    const json = k.textDelivery("hello");
    expect(a.verify(await k.sign(json, "right"), secret(k))).toBeNull();
    expect(a.verify(await k.sign(json, "wrong"), secret(k))).toEqual(expect.any(String));
    expect(a.verify(await k.sign(json, "none"), secret(k))).toEqual(expect.any(String));
  });

  it("describes its connection for the Channels page in words of its own", () => {
    const k = kitOf();
    const d = adapterFor(k.channel).describe(k.conn);
    expect(d.status).toMatch(/^Connected\b.*\.$/);
    expect(d.webhookLabel).toMatch(/\S/);
    expect(d.actions).toMatch(/\S/);
  });

  it("reads a person's text as one message from their address, with a visitor id of its own", () => {
    const k = kitOf();
    const a = adapterFor(k.channel);
    const { inbound } = a.parse(k.conn, k.textDelivery("When do you open?"));
    expect(inbound).toHaveLength(1);
    expect(inbound[0]).toMatchObject({
      address: k.address,
      kind: "text",
      body: { text: "When do you open?" },
    });
    expect(inbound[0]!.contact.startsWith(`${a.visitorPrefix}:`)).toBe(true);
    expect(inbound[0]!.contact).not.toContain(k.address);
  });

  it("formats a long answer under its limits, the buttons that fit on the last part only", () => {
    const a = adapterFor(kitOf().channel);
    const markdown = Array.from(
      { length: 400 },
      (_, i) => `Line ${i} of a long answer about opening hours.`,
    ).join("\n");
    const offer = { buttons: BOT.starters as string[], person: "Talk to a person" };
    const bodies = a.format(markdown, offer);
    expect(bodies.length).toBeGreaterThan(1);
    for (const b of bodies) expect(b.text.length).toBeLessThanOrEqual(a.limits.textMax);
    expect(bodies.slice(0, -1).every((b) => !b.buttons && !b.person)).toBe(true);
    const last = bodies.at(-1)!;
    expect(last.text.length).toBeLessThanOrEqual(a.limits.buttonBodyMax);
    expect(last.person).toBe("Talk to a person");
    expect(last.buttons?.length).toBe(Math.min(3, a.limits.starters(true)));
    expect(a.format("Hi", null)).toEqual([{ text: "Hi" }]);
  });

  it("ends a cited answer with its sources and leaves no [n] marker; an answer citing nothing has neither", () => {
    const a = adapterFor(kitOf().channel);
    const sources = {
      label: "Sources",
      list: [
        { n: 1, title: "Opening hours", url: "https://shop.example/hours" },
        { n: 2, title: "menu.pdf" },
      ],
    };
    const long = `${"We open at nine on weekdays. ".repeat(200)}Sundays too [1], see the menu [2].`;
    const offer = { buttons: BOT.starters as string[], person: "Talk to a person" };
    const bodies = a.format(long, offer, sources);
    for (const b of bodies) expect(b.text.length).toBeLessThanOrEqual(a.limits.textMax);
    expect(bodies.at(-1)!.text.length).toBeLessThanOrEqual(a.limits.buttonBodyMax);
    const all = bodies.map((b) => b.text).join("\n");
    expect(all).not.toMatch(/\[\d/);
    // After the answer, whichever parts the channel's split makes of it.
    expect(all.indexOf("https://shop.example/hours")).toBeGreaterThan(all.indexOf("see the menu"));
    expect(all).toMatch(/menu\.pdf$/);
    const plain = a.format("We open at nine [1].", null, { label: "Sources", list: [] });
    expect(plain).toEqual([{ text: "We open at nine." }]);
  });

  it("sends each body once, with its buttons, and reads a tap on one back as what it stands for", async () => {
    const k = kitOf();
    const a = adapterFor(k.channel);
    const before = k.sent().length;
    const [body] = a.format("We open at nine.", { buttons: ["Opening hours"], person: "Talk to a person" });
    expect((await a.send(k.api, k.conn, k.address, { text: "First." })).ok).toBe(true);
    expect((await a.send(k.api, k.conn, k.address, body!)).ok).toBe(true);
    const sent = k.sent().slice(before);
    expect(sent.map((s) => s.to)).toEqual([k.address, k.address]);
    expect(sent[0]!.buttons).toEqual([]);
    expect(sent[1]!.text).toContain("We open at nine.");
    expect(sent[1]!.buttons.map((b) => b.label)).toEqual(["Opening hours", "Talk to a person"]);
    expect(sent[1]!.buttons.at(-1)!.id).toBe(PERSON_ID);
    const tap = asInbound(k, k.tapDelivery(sent[1]!.buttons[0]!));
    expect(inboundText(BOT, tap.body)).toBe("Opening hours");
    const person = asInbound(k, k.tapDelivery(sent[1]!.buttons[1]!));
    expect(inboundText(BOT, person.body)).toBe("Talk to a person");
  });

  it("sends a confirmation card as one message with Confirm and Cancel by their ids, or has no room for one", async () => {
    const k = kitOf();
    const a = adapterFor(k.channel);
    // A channel without two buttons of its own denies confirming packs (answer.ts passes no `buttons`).
    if (a.limits.choices < 2) return;
    const secret = "conformance-secret-of-at-least-32-characters";
    const conversationId = "00000000-0000-4000-8000-0000000000c0";
    const card = {
      callId: "00000000-0000-4000-8000-0000000000ca",
      title: "Book this table?",
      fields: [
        { label: "Name", value: "Ana" },
        { label: "Note", value: "A long note. ".repeat(200) },
      ],
    };
    const reply = cardReply(a, "en", secret, conversationId, card);
    const bodies = a.format(reply.markdown, reply.offer ?? null);
    expect(bodies).toHaveLength(1);
    expect(bodies[0]!.text.length).toBeLessThanOrEqual(a.limits.buttonBodyMax);
    const before = k.sent().length;
    expect((await a.send(k.api, k.conn, k.address, bodies[0]!)).ok).toBe(true);
    const [sent] = k.sent().slice(before);
    expect(sent!.text).toContain("Book this table?");
    expect(sent!.buttons.map((b) => b.label)).toEqual(["Confirm", "Cancel"]);
    const tap = asInbound(k, k.tapDelivery(sent!.buttons[0]!));
    expect(isActionId(tap.body?.button)).toBe(true);
    expect(readActionId(secret, conversationId, tap.body!.button!)).toEqual({
      callId: card.callId,
      decision: "confirm",
    });
    // Bound to the conversation: the same id read for another one stands for nothing.
    expect(readActionId(secret, "00000000-0000-4000-8000-0000000000c1", tap.body!.button!)).toBeNull();
  });

  it("shows typing where it can, and acknowledges a tap so that it is answered", async () => {
    const k = kitOf();
    const a = adapterFor(k.channel);
    const inbound = asInbound(k, k.textDelivery("hello"));
    await a.typing(k.api, k.conn, k.address, inbound);
    expect(k.typed()).not.toBe(false);
    expect((await a.acknowledgeTap(k.api, k.conn, k.address, inbound)).answer).toBe(true);
  });

  it("checks the connection with the stored token, and fails the check while deliveries are refused", async () => {
    const k = kitOf();
    const a = adapterFor(k.channel);
    expect((await a.check(k.api, k.conn, null, "UTC")).ok).toBe(true);
    const refused = await a.check(k.api, k.conn, "Deliveries were refused.", "UTC");
    expect(refused.ok).toBe(false);
    expect(refused.lines).toContain("Deliveries were refused.");
  });

  it("says in words who refused what, and how to store the secret again", () => {
    const k = kitOf();
    const a = adapterFor(k.channel);
    const words = refusalWords({
      channel: k.channel as ConnectionRow["channel"],
      lastRefusedAt: new Date(),
      lastRefusedReason: "secret_unreadable",
      refusedCount: 2,
    });
    expect(words).toContain(`${a.provider}'s last 2 deliveries were refused`);
    expect(words).toContain(a.words.storeAgain);
  });
}
