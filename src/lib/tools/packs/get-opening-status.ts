import "server-only";
import { getJson, type ToolPack } from "../registry";

// The contract's own example, kept almost word for word; the only addition is passing ctx.signal so the
// platform's timeout reaches the request.

export const openingStatus: ToolPack = {
  id: "get_opening_status",
  name: "Opening hours",
  label: "Checking if we're open",
  definition: {
    type: "function",
    function: {
      name: "get_opening_status",
      description: "Whether the business is open right now, and when it next opens.",
      parameters: { type: "object", properties: {}, required: [] },
    },
  },
  configFields: [{ key: "baseUrl", label: "Site base URL", type: "url", required: true }],
  async run(config, _args, ctx) {
    const data = await getJson(`${config.baseUrl}/api/hours/`, { signal: ctx.signal });
    // Project to a handful of fields: the result is re-sent on EVERY loop round.
    return JSON.stringify({ open: data.open, nextChange: data.nextChange });
  },

  category: "For every business",
  summary: "Tells visitors whether you are open now, from the /api/hours/ endpoint of your site.",
  promptHint:
    "When a visitor asks if the business is open now or today, call get_opening_status instead of guessing.",
  labels: {
    es: "Comprobando si estamos abiertos",
    fr: "Vérification de nos horaires",
    de: "Prüfe, ob wir geöffnet haben",
    ja: "営業中か確認しています",
  },
  example: {
    config: { baseUrl: "https://michi-cafe.example" },
    args: {},
    fixtures: {
      "/api/hours/": {
        open: true,
        nextChange: "2025-06-02T18:00:00+09:00",
        timezone: "Asia/Tokyo",
        regular: [
          { day: "mon", opens: "08:00", closes: "18:00" },
          { day: "tue", opens: "08:00", closes: "18:00" },
        ],
        exceptions: [{ date: "2025-12-31", closed: true, note: "New Year's Eve" }],
        updatedBy: "staff-42",
      },
    },
  },
};
