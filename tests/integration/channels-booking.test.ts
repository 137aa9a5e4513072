import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import { leads, packConfigs } from "@/lib/db/schema";
import { buttonReply, textMessage } from "../fixtures/channels/whatsapp/webhooks";
import { type ChannelWorld, eventually, startChannelWorld } from "../support/channel-world";

// request_booking on WhatsApp with the product's own channel wiring (channelPacks: the booking desk in the
// packs' run context): the card in the business's language, Confirm by its button id, the request filed in
// the Inbox, and the model's answer sent after it.

let c: ChannelWorld;
const ARGS = { name: "Bruno", contact: "+34 600 000 111", date: "2026-12-31", time: "21:00", partySize: 6 };

beforeAll(async () => {
  c = await startChannelWorld({ bot: { language: "es" } });
  await c.w.db.forTenant(c.tenant.id, (tx) =>
    tx.insert(packConfigs).values({
      tenantId: c.tenant.id,
      packId: "request_booking",
      enabled: true,
      config: { kind: "table", services: [], maxPartySize: 10 },
    }),
  );
  c.w.fake.setRules([
    {
      match: "reservar",
      steps: [
        {
          type: "tool_calls",
          calls: [{ id: "call_es", name: "request_booking", arguments: JSON.stringify(ARGS) }],
        },
        { type: "text", text: "Solicitud enviada: el restaurante te la confirmará." },
      ],
    },
  ]);
});
afterAll(() => c?.close());

type Interactive = {
  body: { text: string };
  action: { buttons: { reply: { id: string; title: string } }[] };
};

it("files a WhatsApp booking request in the Inbox only after the Confirm button", async () => {
  const from = "15550809001";
  const ts = Math.floor(Date.now() / 1000);
  await c.post(textMessage("Quiero reservar una mesa", { from, id: "wamid.bk-1", timestamp: ts }));
  await eventually(async () => expect(c.graph.sent.filter((s) => s.to === from)).toHaveLength(1));
  const card = c.graph.sent.filter((s) => s.to === from)[0]!;
  const i = card.body.interactive as Interactive;
  expect(i.body.text).toContain("*¿Enviar esta solicitud de reserva?*");
  expect(i.body.text).toContain("• Personas: 6");
  expect(i.body.text).toContain("• Contacto: +34 600 000 111");
  const [confirm] = i.action.buttons.map((b) => b.reply);
  expect(confirm!.title).toBe("Confirmar");
  const filed = () =>
    c.w.db.forTenant(c.tenant.id, (tx) =>
      tx
        .select()
        .from(leads)
        .where(and(eq(leads.tenantId, c.tenant.id), eq(leads.kind, "booking"))),
    );
  expect(await filed()).toHaveLength(0);

  await c.post(
    buttonReply(confirm!.id, "Confirmar", { from, id: "wamid.bk-2", timestamp: ts, contextId: card.id }),
  );
  await eventually(async () => expect(c.graph.sent.filter((s) => s.to === from)).toHaveLength(2));
  const answer = c.graph.sent.filter((s) => s.to === from)[1]!;
  expect((answer.body.text as { body: string }).body).toContain("Solicitud enviada");
  const [row] = await filed();
  expect(row).toMatchObject({ name: "Bruno", phone: "+34 600 000 111", email: "", locale: "es" });
  expect(row!.message).toContain("Booking request for 2026-12-31 at 21:00");
  expect(row!.message).toContain("Party size: 6");
});
