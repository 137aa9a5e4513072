import "server-only";
import type { BookingRequest } from "../booking-desk";
import { type ConfirmField, definePack, ToolWorldError } from "../registry";

// A booking request for a business with no booking system: the visitor's name, contact, day and time, party
// size (a table) or service (an appointment) and a note, shown on a card and sent only after the visitor's
// Confirm. It is filed in the business's Inbox, mailed to the owners (and the address in the form) and sent
// as a booking.requested webhook (src/lib/leads/booking.ts, reached through ctx.bookings). It is a request:
// the business accepts or refuses it, so the model is told never to say the booking is confirmed.

const KINDS = [
  { value: "table", label: "A table (party size)" },
  { value: "appointment", label: "An appointment (a service)" },
] as const;

type Config = { kind: "table" | "appointment"; services: string[]; hours?: string; maxPartySize: number };

const FIELDS = {
  name: { label: "Name", labels: { es: "Nombre", fr: "Nom", de: "Name", ja: "お名前" } },
  contact: { label: "Contact", labels: { es: "Contacto", fr: "Contact", de: "Kontakt", ja: "連絡先" } },
  date: { label: "Date", labels: { es: "Fecha", fr: "Date", de: "Datum", ja: "日付" } },
  time: { label: "Time", labels: { es: "Hora", fr: "Heure", de: "Uhrzeit", ja: "時間" } },
  partySize: {
    label: "Party size",
    labels: { es: "Personas", fr: "Personnes", de: "Personen", ja: "人数" },
  },
  service: { label: "Service", labels: { es: "Servicio", fr: "Prestation", de: "Leistung", ja: "サービス" } },
  note: { label: "Note", labels: { es: "Nota", fr: "Remarque", de: "Notiz", ja: "メモ" } },
} as const;

/** The arguments of this business's requests, in the order the card shows them. */
function keysOf(config: Config): (keyof typeof FIELDS)[] {
  return ["name", "contact", "date", "time", config.kind === "table" ? "partySize" : "service", "note"];
}

/** The model's schema: a party size for a table (up to the form's maximum), a service for an appointment. */
function schemaOf(config: Config) {
  const services = config.services.map((s) => s.trim()).filter(Boolean);
  const table = config.kind === "table";
  return {
    type: "object" as const,
    properties: {
      name: { type: "string", minLength: 1, maxLength: 100, description: "The visitor's name." },
      contact: {
        type: "string",
        minLength: 3,
        maxLength: 200,
        description:
          "How the business reaches the visitor: their e-mail address or phone number, as they gave it.",
      },
      date: { type: "string", pattern: "^\\d{4}-\\d{2}-\\d{2}$", description: "The day, as YYYY-MM-DD." },
      time: {
        type: "string",
        pattern: "^([01]\\d|2[0-3]):[0-5]\\d$",
        description: "The time, as HH:MM (24 h).",
      },
      ...(table
        ? {
            partySize: {
              type: "integer",
              minimum: 1,
              maximum: config.maxPartySize,
              description: "How many people are coming.",
            },
          }
        : {
            service: {
              type: "string",
              minLength: 1,
              maxLength: 100,
              ...(services.length ? { enum: services } : {}),
              description: "The service the visitor wants.",
            },
          }),
      note: { type: "string", maxLength: 500, description: "Anything else the visitor asked to pass on." },
    },
    required: ["name", "contact", "date", "time", table ? "partySize" : "service"],
    additionalProperties: false,
  };
}

function cardFields(config: Config): ConfirmField[] {
  return keysOf(config).map((key) => ({ key, ...FIELDS[key] }));
}

const str = (v: unknown) => (typeof v === "string" && v.trim() ? v.trim() : undefined);

export const requestBooking = definePack({
  id: "request_booking",
  name: "Booking requests",
  label: "Sending your booking request",
  definition: {
    type: "function",
    function: {
      name: "request_booking",
      description:
        "Sends the visitor's booking request to the business, which confirms or refuses it later. The visitor confirms the values first.",
      parameters: { type: "object", properties: {}, required: [], additionalProperties: false },
    },
  },
  configFields: [
    { key: "kind", label: "What visitors book", type: "select", options: KINDS, default: "table" },
    {
      key: "services",
      label: "Services",
      type: "list",
      maxItems: 20,
      itemMaxLength: 100,
      help: "For appointments: one per line. The bot offers only these. Leave empty to let visitors say.",
    },
    {
      key: "hours",
      label: "When bookings are possible",
      type: "text",
      maxLength: 300,
      placeholder: "Tuesday to Sunday, 12:00 to 22:00; at least a day ahead.",
    },
    {
      key: "maxPartySize",
      label: "Largest party",
      type: "number",
      integer: true,
      min: 1,
      max: 500,
      default: 12,
    },
    {
      key: "notifyEmail",
      label: "Also mail requests to",
      type: "text",
      format: "email",
      maxLength: 200,
      help: "Requests go to the Inbox and to every owner; add an address here to mail one more.",
    },
  ],
  describe: (config) =>
    [
      `Sends the visitor's request to book ${config.kind === "table" ? "a table" : "an appointment"}. Ask for every value first; the visitor confirms them on a card.`,
      config.hours?.trim() ? `Bookings are possible: ${config.hours.trim()}` : "",
      "It is a request: the business confirms or refuses it later.",
    ]
      .filter(Boolean)
      .join(" "),
  parametersFor: (config) => schemaOf(config as Config),
  confirm: {
    title: {
      en: "Send this booking request?",
      es: "¿Enviar esta solicitud de reserva?",
      fr: "Envoyer cette demande de réservation ?",
      de: "Diese Reservierungsanfrage senden?",
      ja: "この予約リクエストを送信しますか？",
    },
    fields: (config) => cardFields(config as Config),
  },
  async run(config, args, ctx) {
    if (!ctx.idempotencyKey) throw new ToolWorldError("Nothing is sent without the visitor's confirmation");
    if (!ctx.bookings) throw new ToolWorldError("Booking requests cannot be sent from here");
    const request: BookingRequest = {
      name: String(args.name),
      contact: String(args.contact),
      date: String(args.date),
      time: String(args.time),
      ...(typeof args.partySize === "number" ? { partySize: args.partySize } : {}),
      ...(str(args.service) ? { service: str(args.service) } : {}),
      ...(str(args.note) ? { note: str(args.note) } : {}),
    };
    const filed = await ctx.bookings(ctx.tenantId, request, {
      conversationId: ctx.conversationId ?? undefined,
      idempotencyKey: ctx.idempotencyKey,
      lang: ctx.lang,
      notify: str(config.notifyEmail),
    });
    return {
      status: "requested",
      reference: filed.id.slice(0, 8),
      note: "The request was sent. It is NOT a confirmed booking: tell the visitor the business will confirm or refuse it through the contact they gave. Never say the booking is confirmed.",
    };
  },

  category: "For every business",
  summary:
    "Takes booking requests (a table or an appointment) after the visitor confirms them; they arrive in your Inbox.",
  promptHint:
    "request_booking only sends a request: never tell the visitor their booking is confirmed; say the business will confirm it.",
  labels: {
    es: "Enviando tu solicitud de reserva",
    fr: "Envoi de votre demande de réservation",
    de: "Sende deine Reservierungsanfrage",
    ja: "予約リクエストを送信しています",
  },
  example: {
    config: { kind: "table", services: [], hours: "Tuesday to Sunday, 12:00 to 22:00", maxPartySize: 12 },
    args: { name: "Ana", contact: "ana@example.com", date: "2026-12-24", time: "19:30", partySize: 4 },
  },
});
