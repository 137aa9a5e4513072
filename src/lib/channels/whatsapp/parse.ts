import "server-only";
import { z } from "zod";

// The `messages` webhook of the WhatsApp Cloud API
// (https://developers.facebook.com/docs/whatsapp/cloud-api/webhooks/components and
// https://developers.facebook.com/docs/whatsapp/cloud-api/webhooks/payload-examples): one POST may carry several
// entries, changes, messages and statuses. Each message and status is read on its own, so one Meta adds later
// or one we cannot read is left out (or kept as "unsupported") without losing its neighbours; the route has
// verified the signature already, so nothing here throws.

type WaBase = {
  /** wamid.…, unique per message: what Meta's retries repeat and the dedupe keys on. */
  id: string;
  /** The customer's WhatsApp id (their phone number in international form, digits only). */
  from: string;
  /** Unix seconds, as Meta stamped it. */
  timestamp: number;
  /** Which business number received it (a connection may share an app with other numbers). */
  phoneNumberId: string;
  profileName: string | null;
  /** The wamid this message replies to, when the customer used "reply". */
  contextId: string | null;
};

export type WaMediaKind = "image" | "audio" | "video" | "document" | "sticker";

export type WaInbound = WaBase &
  (
    | { kind: "text"; text: string }
    /** A tap on a reply button or list row (interactive) or a template's quick-reply button. */
    | { kind: "button"; buttonId: string; text: string }
    | { kind: "media"; media: WaMediaKind; mediaId: string; mimeType: string | null; caption: string | null }
    | { kind: "location"; latitude: number; longitude: number; name: string | null; address: string | null }
    | { kind: "contacts"; count: number }
    /** `emoji` null when the customer removed a reaction. */
    | { kind: "reaction"; messageId: string; emoji: string | null }
    /** Anything else (orders, polls, system messages, Meta's own "unsupported"): answered politely. */
    | { kind: "unsupported"; type: string }
  );

export type WaStatus = {
  /** The wamid of the message we sent. */
  messageId: string;
  status: "sent" | "delivered" | "read" | "failed";
  recipient: string;
  timestamp: number;
  phoneNumberId: string;
  /** Meta's error on a failed status (131047 re-engagement, 131026 undeliverable …). */
  error: { code: number; title: string; details: string | null } | null;
};

const str = z.string();
const optStr = z.string().nullish();
const seconds = z.union([z.string().regex(/^\d+$/), z.number().int()]).transform(Number);

const envelope = z.object({
  object: z.literal("whatsapp_business_account"),
  entry: z.array(
    z.object({
      changes: z.array(z.object({ field: str, value: z.record(z.string(), z.unknown()) })).default([]),
    }),
  ),
});

const valueShape = z.object({
  metadata: z.object({ phone_number_id: str }),
  contacts: z.array(z.object({ wa_id: optStr, profile: z.object({ name: optStr }).nullish() })).nullish(),
  messages: z.array(z.unknown()).nullish(),
  statuses: z.array(z.unknown()).nullish(),
});

const messageBase = z.object({
  id: str.min(1),
  from: str.min(1),
  timestamp: seconds,
  type: str,
  context: z.object({ id: optStr }).nullish(),
});

const media = z.object({ id: str.min(1), mime_type: optStr, caption: optStr });

const bodies = {
  text: z.object({ text: z.object({ body: str }) }),
  interactive: z.object({
    interactive: z.object({
      type: str,
      button_reply: z.object({ id: str, title: str }).nullish(),
      list_reply: z.object({ id: str, title: str }).nullish(),
    }),
  }),
  button: z.object({ button: z.object({ payload: optStr, text: str }) }),
  location: z.object({
    location: z.object({ latitude: z.number(), longitude: z.number(), name: optStr, address: optStr }),
  }),
  contacts: z.object({ contacts: z.array(z.unknown()) }),
  reaction: z.object({ reaction: z.object({ message_id: str, emoji: optStr }) }),
};

const MEDIA: readonly WaMediaKind[] = ["image", "audio", "video", "document", "sticker"];

const statusShape = z.object({
  id: str.min(1),
  status: z.enum(["sent", "delivered", "read", "failed"]),
  recipient_id: str,
  timestamp: seconds,
  errors: z
    .array(
      z.object({
        code: z.number().int(),
        title: optStr,
        message: optStr,
        error_data: z.object({ details: optStr }).nullish(),
      }),
    )
    .nullish(),
});

function readMessage(raw: unknown, phoneNumberId: string, names: Map<string, string>): WaInbound | null {
  const b = messageBase.safeParse(raw);
  if (!b.success) return null;
  const m = b.data;
  const base: WaBase = {
    id: m.id,
    from: m.from,
    timestamp: m.timestamp,
    phoneNumberId,
    profileName: names.get(m.from) ?? null,
    contextId: m.context?.id ?? null,
  };
  const unsupported = (): WaInbound => ({ ...base, kind: "unsupported", type: m.type });
  switch (m.type) {
    case "text": {
      const t = bodies.text.safeParse(raw);
      return t.success ? { ...base, kind: "text", text: t.data.text.body } : unsupported();
    }
    case "interactive": {
      const t = bodies.interactive.safeParse(raw);
      const reply = t.success ? (t.data.interactive.button_reply ?? t.data.interactive.list_reply) : null;
      return reply ? { ...base, kind: "button", buttonId: reply.id, text: reply.title } : unsupported();
    }
    case "button": {
      const t = bodies.button.safeParse(raw);
      if (!t.success) return unsupported();
      return {
        ...base,
        kind: "button",
        buttonId: t.data.button.payload ?? t.data.button.text,
        text: t.data.button.text,
      };
    }
    case "location": {
      const t = bodies.location.safeParse(raw);
      if (!t.success) return unsupported();
      const l = t.data.location;
      return {
        ...base,
        kind: "location",
        latitude: l.latitude,
        longitude: l.longitude,
        name: l.name ?? null,
        address: l.address ?? null,
      };
    }
    case "contacts": {
      const t = bodies.contacts.safeParse(raw);
      return t.success ? { ...base, kind: "contacts", count: t.data.contacts.length } : unsupported();
    }
    case "reaction": {
      const t = bodies.reaction.safeParse(raw);
      if (!t.success) return unsupported();
      return {
        ...base,
        kind: "reaction",
        messageId: t.data.reaction.message_id,
        emoji: t.data.reaction.emoji || null,
      };
    }
    default: {
      if ((MEDIA as readonly string[]).includes(m.type)) {
        const t = z.object({ [m.type]: media }).safeParse(raw);
        if (!t.success) return unsupported();
        const x = (t.data as Record<string, z.infer<typeof media>>)[m.type]!;
        return {
          ...base,
          kind: "media",
          media: m.type as WaMediaKind,
          mediaId: x.id,
          mimeType: x.mime_type ?? null,
          caption: x.caption ?? null,
        };
      }
      return unsupported();
    }
  }
}

function readStatus(raw: unknown, phoneNumberId: string): WaStatus | null {
  const s = statusShape.safeParse(raw);
  if (!s.success) return null;
  const e = s.data.errors?.[0];
  return {
    messageId: s.data.id,
    status: s.data.status,
    recipient: s.data.recipient_id,
    timestamp: s.data.timestamp,
    phoneNumberId,
    error: e
      ? {
          code: e.code,
          title: e.title ?? e.message ?? "Unknown error",
          details: e.error_data?.details ?? null,
        }
      : null,
  };
}

/** Every customer message and delivery status in one webhook body; anything else in it is ignored. */
export function parseWhatsAppWebhook(json: unknown): { messages: WaInbound[]; statuses: WaStatus[] } {
  const messages: WaInbound[] = [];
  const statuses: WaStatus[] = [];
  const env = envelope.safeParse(json);
  if (!env.success) return { messages, statuses };
  for (const entry of env.data.entry) {
    for (const change of entry.changes) {
      if (change.field !== "messages") continue;
      const v = valueShape.safeParse(change.value);
      if (!v.success) continue;
      const phone = v.data.metadata.phone_number_id;
      const names = new Map<string, string>();
      for (const c of v.data.contacts ?? [])
        if (c.wa_id && c.profile?.name) names.set(c.wa_id, c.profile.name);
      for (const raw of v.data.messages ?? []) {
        const m = readMessage(raw, phone, names);
        if (m) messages.push(m);
      }
      for (const raw of v.data.statuses ?? []) {
        const s = readStatus(raw, phone);
        if (s) statuses.push(s);
      }
    }
  }
  return { messages, statuses };
}
