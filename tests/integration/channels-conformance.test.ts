import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHANNEL_ADAPTERS } from "@/lib/channels/adapter";
import type { ChannelAdapter } from "@/lib/channels/adapter-types";
import { hasButtons, starterId } from "@/lib/channels/buttons";
import { channelVisitorId, sealChannelSecret } from "@/lib/channels/identity";
import { formatBodies } from "@/lib/channels/reply-format";
import { withSources } from "@/lib/channels/sources";
import { getConnectionByChannel } from "@/lib/db/queries/channels";
import { callbackUpdate, textUpdate, USER_ID } from "../fixtures/channels/telegram/updates";
import { buttonReply, CUSTOMER, signature, textMessage } from "../fixtures/channels/whatsapp/webhooks";
import { type ConformanceKit, conformanceCases, type Sent } from "../support/channel-conformance";
import { APP_SECRET, type ChannelWorld, startChannelWorld } from "../support/channel-world";

// Every adapter in the channels' table through the same cases (tests/support/channel-conformance.ts), against
// the fake Graph API and the fake Bot API; then a third channel, made up here, registered in the table and run
// through the same cases with nothing else changed.

let c: ChannelWorld;
const kits = new Map<string, ConformanceKit>();
const kit = (channel: string) => () => kits.get(channel)!;

const bytes = (json: unknown) => new TextEncoder().encode(JSON.stringify(json));

beforeAll(async () => {
  c = await startChannelWorld();
  const [wa, tg] = await c.w.db.forTenant(c.tenant.id, async (tx) => [
    await getConnectionByChannel(tx, "whatsapp"),
    await getConnectionByChannel(tx, "telegram"),
  ]);
  kits.set("whatsapp", {
    channel: "whatsapp",
    conn: wa!,
    api: c.deps,
    address: CUSTOMER,
    textDelivery: (text) => textMessage(text, { from: CUSTOMER }),
    tapDelivery: (b) => buttonReply(b.id, b.label, { from: CUSTOMER }),
    async sign(json, how) {
      const raw = bytes(json);
      const headers = new Headers();
      if (how !== "none")
        headers.set("x-hub-signature-256", await signature(raw, how === "right" ? APP_SECRET : "x"));
      return { headers, raw };
    },
    sent: () =>
      c.graph.sent.map((m): Sent => {
        const i = m.body.interactive as
          | { body: { text: string }; action: { buttons: { reply: { id: string; title: string } }[] } }
          | undefined;
        return {
          to: m.to,
          text: i ? i.body.text : String((m.body.text as { body: string }).body),
          buttons: i ? i.action.buttons.map((b) => ({ id: b.reply.id, label: b.reply.title })) : [],
        };
      }),
    typed: () => c.graph.reads.some((r) => r.typing),
  });
  kits.set("telegram", {
    channel: "telegram",
    conn: tg!,
    api: c.deps,
    address: String(USER_ID),
    textDelivery: (text) => textUpdate(text),
    tapDelivery: (b) => callbackUpdate(b.id, { label: b.label, callbackId: randomUUID() }),
    async sign(json, how) {
      const headers = new Headers();
      const right = c.telegram.webhook!.secretToken!;
      if (how !== "none")
        headers.set("x-telegram-bot-api-secret-token", how === "right" ? right : `${right}x`);
      return { headers, raw: bytes(json) };
    },
    sent: () =>
      c.telegram.sent.map((m) => {
        const rows = ((
          m.body.reply_markup as { inline_keyboard?: { text: string; callback_data: string }[][] }
        )?.inline_keyboard ?? []) as { text: string; callback_data: string }[][];
        return {
          to: String(m.chatId),
          text: m.html,
          buttons: rows.flat().map((b) => ({ id: b.callback_data, label: b.text })),
        };
      }),
    typed: () => c.telegram.actions.some((a) => a.action === "typing"),
  });
}, 120_000);

afterAll(async () => {
  await c?.close();
});

it("every channel in the table has a conformance kit", () => {
  expect([...CHANNEL_ADAPTERS.keys()].sort()).toEqual([...kits.keys()].sort());
});

for (const channel of ["whatsapp", "telegram"]) {
  describe(`the ${channel} adapter`, () => conformanceCases(kit(channel)));
}

describe("a third channel added to the table and nowhere else", () => {
  // A made-up provider on loopback: JSON deliveries carrying the shared secret in a header, one endpoint to
  // send, one to show typing, one to say who the bot is.
  const got: Sent[] = [];
  let typed = false;
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (d) => {
      body += d;
    });
    req.on("end", () => {
      if (req.url === "/send") {
        const m = JSON.parse(body) as { to: string; text: string; buttons: { id: string; label: string }[] };
        got.push(m);
        res.end(JSON.stringify({ ok: true, id: `loop-${got.length}` }));
      } else if (req.url === "/typing") {
        typed = true;
        res.end(JSON.stringify({ ok: true }));
      } else res.end(JSON.stringify({ ok: req.headers.authorization === "Bearer loop-token" }));
    });
  });
  let base = "";
  const call = async (path: string, payload: unknown) => {
    const r = (await (
      await fetch(`${base}${path}`, {
        method: "POST",
        body: JSON.stringify(payload),
        headers: { authorization: "Bearer loop-token" },
      })
    ).json()) as { ok: boolean; id?: string };
    return r.ok
      ? { ok: true as const, id: r.id ?? "" }
      : { ok: false as const, code: "refused", message: "refused", retryable: false, retryAfter: null };
  };
  const loop: ChannelAdapter = {
    channel: "loopchat",
    visitorPrefix: "lc",
    provider: "Loopchat",
    limits: {
      textMax: 500,
      buttonBodyMax: 200,
      starters: (withPerson) => (withPerson ? 2 : 3),
      choices: 0,
    },
    window: null,
    words: { secret: "delivery secret", storeAgain: "Paste the delivery secret again." },
    describe: () => ({
      status: "Connected.",
      webhookLabel: "Webhook URL to paste at Loopchat",
      actions: "Actions such as bookings are not offered here: Loopchat has no buttons.",
    }),
    verify: ({ headers }, secret) => {
      const given = headers.get("x-loop-secret");
      if (!given) return "missing_secret_token";
      return given === secret("webhookSecret") ? null : "wrong_secret_token";
    },
    parse: (conn, json) => {
      const m = json as { from: string; text: string; button?: string };
      return {
        inbound: [
          {
            tenantId: conn.tenantId,
            connectionId: conn.id,
            externalId: randomUUID(),
            contact: channelVisitorId(loop.visitorPrefix, conn.id, m.from),
            address: m.from,
            kind: "text",
            body: { text: m.text, ...(m.button ? { button: m.button } : {}) },
            sentAt: new Date(),
          },
        ],
        statuses: [],
      };
    },
    // An answer's sources are the channel's to show (src/lib/channels/sources.ts), as Markdown it converts.
    format: (markdown, offer, sources) =>
      formatBodies(
        withSources(markdown, sources).match(/[\s\S]{1,500}/g) ?? [],
        offer,
        loop.limits.starters,
        (last) => last.match(/[\s\S]{1,200}/g) ?? [],
      ),
    send: (_api, _conn, to, body) =>
      call("/send", {
        to,
        text: body.text,
        buttons: hasButtons(body)
          ? [
              ...(body.buttons ?? []).map((s) => ({ id: starterId(s, () => true), label: s })),
              ...(body.person ? [{ id: "live:person", label: body.person }] : []),
            ]
          : [],
      }),
    typing: (_api, _conn, to) => call("/typing", { to }),
    acknowledgeTap: async () => ({ answer: true, buttonsRemoved: false }),
    check: async (_api, _conn, refused) => {
      const me = await call("/me", {});
      const lines = [me.ok ? "The token works." : "The token was refused.", ...(refused ? [refused] : [])];
      return { ok: me.ok && !refused, lines };
    },
    disconnect: async () => {},
  };

  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const id = randomUUID();
    const wa = kits.get("whatsapp")!.conn;
    kits.set("loopchat", {
      channel: "loopchat",
      conn: {
        ...wa,
        id,
        channel: "loopchat" as typeof wa.channel,
        secrets: { webhookSecret: sealChannelSecret("loop-secret", wa.tenantId, id, "webhookSecret") },
      },
      api: {},
      address: "loop-ada",
      textDelivery: (text) => ({ from: "loop-ada", text }),
      tapDelivery: (b) => ({ from: "loop-ada", text: b.label, button: b.id }),
      async sign(json, how) {
        const headers = new Headers();
        if (how !== "none") headers.set("x-loop-secret", how === "right" ? "loop-secret" : "nope");
        return { headers, raw: bytes(json) };
      },
      sent: () => got,
      typed: () => typed,
    });
    CHANNEL_ADAPTERS.set(loop.channel, loop);
  });

  afterAll(async () => {
    CHANNEL_ADAPTERS.delete(loop.channel);
    kits.delete("loopchat");
    await new Promise((resolve) => server.close(resolve));
  });

  conformanceCases(kit("loopchat"));
});
