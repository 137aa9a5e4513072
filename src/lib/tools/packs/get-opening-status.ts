import "server-only";
import {
  exceptionLineProblem,
  openingStatusAt,
  parseOpeningHours,
  weeklyLineProblem,
} from "../opening-hours";
import { definePack, getJson, ToolWorldError } from "../registry";

// The contract's own example, grown so that it works from the form alone: a business types its weekly hours
// and holidays and picks its time zone; one that already publishes its hours can point the pack at its
// endpoint instead. Either way the model gets a handful of fields, never the raw payload.

// Intl's list leaves out the plain "UTC" on some ICU builds; businesses look for it first.
const ZONES = ["UTC", ...Intl.supportedValuesOf("timeZone").filter((z) => z !== "UTC")];

export const openingStatus = definePack({
  id: "get_opening_status",
  name: "Opening hours",
  label: "Checking if we're open",
  definition: {
    type: "function",
    function: {
      name: "get_opening_status",
      description:
        "Whether the business is open right now, when that next changes (nextChange, in the business's own time zone), and today's hours.",
      parameters: { type: "object", properties: {}, required: [] },
    },
  },
  configFields: [
    {
      key: "weeklyHours",
      label: "Weekly hours",
      type: "list",
      maxItems: 14,
      itemMaxLength: 120,
      itemProblem: weeklyLineProblem,
      placeholder: "Mon-Fri 09:00-12:00, 13:00-18:00\nSat 10:00-14:00\nSun closed",
      help: "One line per day or run of days, several ranges separated by commas. Days you leave out are closed; a range may run past midnight (22:00-02:00).",
    },
    {
      key: "exceptions",
      label: "Holidays and exceptions",
      type: "list",
      maxItems: 60,
      itemMaxLength: 120,
      itemProblem: exceptionLineProblem,
      placeholder:
        "2026-12-25 closed Christmas\n2026-12-24 10:00-14:00 Christmas Eve\n2026-08-10..2026-08-16 closed Summer break",
      help: "A date (or first..last date), then closed or the hours that day, then an optional note the assistant may mention.",
    },
    {
      key: "timeZone",
      label: "Time zone",
      type: "select",
      options: ZONES.map((z) => ({ value: z, label: z.replaceAll("_", " ") })),
      default: "UTC",
      help: "The zone your hours are in, so that visitors abroad are told your local time.",
    },
    {
      key: "baseUrl",
      label: "Site base URL",
      type: "url",
      help: 'Only if you leave the weekly hours empty: your site answers GET <base URL>/api/hours/ with JSON such as {"open": true, "nextChange": "2026-06-02T18:00:00+09:00"}: whether you are open now, and when that changes (ISO 8601 with your offset). Other fields are ignored.',
    },
  ],
  async run(config, _args, ctx) {
    if (config.weeklyHours.length > 0) {
      const hours = parseOpeningHours(config.weeklyHours, config.exceptions);
      return openingStatusAt(hours, config.timeZone, Date.now());
    }
    if (!config.baseUrl) throw new ToolWorldError("the business has not entered its opening hours");
    const data = await getJson(`${config.baseUrl}/api/hours/`, { signal: ctx.signal });
    // Project to a handful of fields: the result is re-sent on EVERY loop round.
    return { open: data.open, nextChange: data.nextChange };
  },

  lacks: (config) =>
    (Array.isArray(config.weeklyHours) && config.weeklyHours.length > 0) ||
    (typeof config.baseUrl === "string" && config.baseUrl !== "")
      ? null
      : "your weekly hours (or your site's base URL, if your site publishes its hours)",
  category: "For every business",
  summary:
    "Tells visitors whether you are open now and when you open or close, from the hours you type here.",
  promptHint:
    "When a visitor asks if the business is open now or today, call get_opening_status instead of guessing.",
  labels: {
    es: "Comprobando si estamos abiertos",
    fr: "Vérification de nos horaires",
    de: "Prüfe, ob wir geöffnet haben",
    ja: "営業中か確認しています",
  },
  example: {
    config: {
      weeklyHours: ["Mon-Fri 08:00-18:00", "Sat 09:00-15:00", "Sun closed"],
      exceptions: ["2026-12-31 closed New Year's Eve"],
      timeZone: "Asia/Tokyo",
    },
    args: {},
  },
});
