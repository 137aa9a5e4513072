import "server-only";
import {
  addDays,
  BOOKINGS_VERSION,
  baseOf,
  DAY,
  MAX_DAYS,
  projectSlots,
  SLOTS_VERSION,
  worded,
} from "../cal-com";
import { instantOf } from "../opening-hours";
import { clipText } from "../project";
import { definePack, getJson, postJson, ToolWorldError } from "../registry";

// Appointments in the business's own Cal.com calendar, through Cal.com's public API v2. Two packs, because
// `confirm` holds for every call of a pack: find_appointment_slots only reads (GET /v2/slots) and runs on the
// model's say-so; book_appointment writes (POST /v2/bookings) and runs once, after the visitor's Confirm, with
// the call's Idempotency-Key. Both take the same three settings. The API key is a secret field: the model,
// the logs and the result never see it, and it travels only as the Authorization header of these requests.
// The API's shapes and refusals: src/lib/tools/cal-com.ts.

const ZONES = ["UTC", ...Intl.supportedValuesOf("timeZone").filter((z) => z !== "UTC")];

const FIELDS = [
  {
    key: "apiKey",
    label: "Cal.com API key",
    type: "secret",
    required: true,
    maxLength: 200,
    help: "In Cal.com: Settings, Developer, API keys (it starts with cal_). Stored encrypted and never shown again.",
  },
  {
    key: "eventTypeId",
    label: "Event type ID",
    type: "number",
    integer: true,
    min: 1,
    required: true,
    help: "The number of the event type visitors book (Cal.com shows it in the event type's address).",
  },
  {
    key: "timeZone",
    label: "Time zone",
    type: "select",
    options: ZONES.map((z) => ({ value: z, label: z.replaceAll("_", " ") })),
    default: "UTC",
    help: "Your business's time zone: the times the bot offers and books are in it.",
  },
  {
    key: "apiBaseUrl",
    label: "Cal.com API address (testing only)",
    type: "text",
    maxLength: 200,
    help: "Leave empty to use https://api.cal.com. Any other address must be on this installation's fetch allowlist.",
  },
] as const;

const LABELS = {
  date: { label: "Date", labels: { es: "Fecha", fr: "Date", de: "Datum", ja: "日付" } },
  time: { label: "Time", labels: { es: "Hora", fr: "Heure", de: "Uhrzeit", ja: "時間" } },
  name: { label: "Name", labels: { es: "Nombre", fr: "Nom", de: "Name", ja: "お名前" } },
  email: { label: "E-mail", labels: { es: "Correo", fr: "E-mail", de: "E-Mail", ja: "メール" } },
} as const;

const EXAMPLE_CONFIG = { apiKey: "cal_live_0123456789abcdef", eventTypeId: 1234, timeZone: "Europe/Rome" };

export const appointmentSlots = definePack({
  id: "find_appointment_slots",
  name: "Cal.com free times",
  label: "Looking for free times",
  definition: {
    type: "function",
    function: {
      name: "find_appointment_slots",
      description:
        "Lists the free appointment times in the business's calendar from a day on, in the business's time zone. Use it before book_appointment.",
      parameters: {
        type: "object",
        properties: {
          from: {
            type: "string",
            pattern: "^\\d{4}-\\d{2}-\\d{2}$",
            description: "The first day, YYYY-MM-DD.",
          },
          days: { type: "integer", minimum: 1, maximum: MAX_DAYS, description: "How many days to look at." },
        },
        required: ["from"],
        additionalProperties: false,
      },
    },
  },
  configFields: FIELDS,
  async run(config, args, ctx) {
    const from = String(args.from);
    if (!DAY.test(from)) throw new ToolWorldError("The day must be written YYYY-MM-DD");
    const days = typeof args.days === "number" ? Math.min(Math.max(1, args.days), MAX_DAYS) : 1;
    let answer: unknown;
    try {
      answer = await getJson(`${baseOf(config)}/v2/slots`, {
        signal: ctx.signal,
        bearer: config.apiKey,
        headers: { "cal-api-version": SLOTS_VERSION },
        query: {
          eventTypeId: config.eventTypeId,
          start: from,
          end: addDays(from, days - 1),
          timeZone: config.timeZone,
        },
      });
    } catch (err) {
      throw worded(err, false);
    }
    return projectSlots(answer, config.timeZone);
  },

  category: "Bookings",
  summary: "Lets the bot read the free times of one Cal.com event type (with book_appointment).",
  labels: {
    es: "Buscando horas libres",
    fr: "Recherche de créneaux libres",
    de: "Suche freie Termine",
    ja: "空き時間を探しています",
  },
  example: {
    config: EXAMPLE_CONFIG,
    args: { from: "2050-09-05", days: 2 },
    fixtures: {
      "/v2/slots": {
        status: "success",
        data: {
          "2050-09-05": [
            { start: "2050-09-05T09:00:00.000+02:00" },
            { start: "2050-09-05T09:30:00.000+02:00" },
          ],
          "2050-09-06": [{ start: "2050-09-06T14:00:00.000+02:00" }],
        },
      },
    },
  },
});

export const bookAppointment = definePack({
  id: "book_appointment",
  name: "Cal.com bookings",
  label: "Booking your appointment",
  definition: {
    type: "function",
    function: {
      name: "book_appointment",
      description:
        "Books a free time from find_appointment_slots in the business's Cal.com calendar for the visitor. The visitor confirms the values first.",
      parameters: {
        type: "object",
        properties: {
          date: { type: "string", pattern: "^\\d{4}-\\d{2}-\\d{2}$", description: "The day, YYYY-MM-DD." },
          time: {
            type: "string",
            pattern: "^([01]\\d|2[0-3]):[0-5]\\d$",
            description: "A free time of that day as find_appointment_slots listed it, HH:MM.",
          },
          name: { type: "string", minLength: 1, maxLength: 100, description: "The visitor's name." },
          email: {
            type: "string",
            pattern: "^[^@\\s]+@[^@\\s]+\\.[^@\\s]+$",
            maxLength: 200,
            description: "The visitor's e-mail address; Cal.com sends the confirmation there.",
          },
        },
        required: ["date", "time", "name", "email"],
        additionalProperties: false,
      },
    },
  },
  configFields: FIELDS,
  confirm: {
    title: {
      en: "Book this appointment?",
      es: "¿Reservar esta cita?",
      fr: "Réserver ce rendez-vous ?",
      de: "Diesen Termin buchen?",
      ja: "この予約を確定しますか？",
    },
    fields: [
      { key: "date", ...LABELS.date },
      { key: "time", ...LABELS.time },
      { key: "name", ...LABELS.name },
      { key: "email", ...LABELS.email },
    ],
  },
  async run(config, args, ctx) {
    if (!ctx.idempotencyKey) throw new ToolWorldError("Nothing is booked without the visitor's confirmation");
    const [hh, mm] = String(args.time).split(":").map(Number);
    const start = new Date(instantOf(String(args.date), hh! * 60 + mm!, config.timeZone)).toISOString();
    const body = {
      start,
      eventTypeId: config.eventTypeId,
      attendee: { name: String(args.name), email: String(args.email), timeZone: config.timeZone },
    };
    let answer: unknown;
    try {
      answer = await postJson(`${baseOf(config)}/v2/bookings`, body, {
        signal: ctx.signal,
        idempotencyKey: ctx.idempotencyKey,
        bearer: config.apiKey,
        headers: { "cal-api-version": BOOKINGS_VERSION },
      });
    } catch (err) {
      throw worded(err, true);
    }
    const data = (answer as { data?: Record<string, unknown> } | null)?.data;
    const text = (v: unknown) => (typeof v === "string" ? clipText(v, 80) : undefined);
    // Only what the visitor needs to hear: not the attendees, the meeting link or the host's details.
    return {
      status: text(data?.status) ?? "accepted",
      start: text(data?.start) ?? start,
      uid: text(data?.uid),
    };
  },

  category: "Bookings",
  summary: "Books a Cal.com appointment for the visitor after they confirm the day, time, name and e-mail.",
  promptHint:
    "Before book_appointment, list the free times with find_appointment_slots and ask for the visitor's name and e-mail.",
  labels: {
    es: "Reservando tu cita",
    fr: "Réservation de votre rendez-vous",
    de: "Buche deinen Termin",
    ja: "予約しています",
  },
  example: {
    config: EXAMPLE_CONFIG,
    args: { date: "2050-09-05", time: "09:00", name: "Ana", email: "ana@example.com" },
    fixtures: {
      "/v2/bookings": {
        status: "success",
        data: {
          id: 101,
          uid: "bk_3f9c2a",
          title: "Consultation between Michi Clinic and Ana",
          status: "accepted",
          start: "2050-09-05T07:00:00.000Z",
          end: "2050-09-05T07:30:00.000Z",
          attendees: [{ name: "Ana", email: "ana@example.com", timeZone: "Europe/Rome" }],
        },
      },
    },
  },
});
