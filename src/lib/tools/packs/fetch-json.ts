import "server-only";
import { FIELD_PATH, projectFields } from "../project";
import { definePack, getJson, ToolWorldError } from "../registry";

// The generic pack: one JSON endpoint of the tenant's own site, reduced to an allowlist of fields. Everything
// not listed is dropped before the model sees it. The admin's sentence becomes the tool description.

export const fetchJson = definePack({
  id: "fetch_json",
  name: "Your own JSON data",
  label: "Checking our website",
  definition: {
    type: "function",
    function: {
      name: "fetch_json",
      description: "Reads current information from the business's website.",
      parameters: { type: "object", properties: {}, required: [], additionalProperties: false },
    },
  },
  configFields: [
    {
      key: "baseUrl",
      label: "Site base URL",
      type: "url",
      required: true,
      placeholder: "https://www.example.com",
      help: "Must be on one of your site's domains.",
    },
    {
      key: "path",
      label: "Path of the JSON file",
      type: "path",
      required: true,
      placeholder: "/api/events.json",
    },
    {
      key: "fields",
      label: "Fields to keep",
      type: "list",
      required: true,
      maxItems: 30,
      itemMaxLength: 120,
      itemPattern: FIELD_PATH,
      itemMessage: "use names joined by dots, with [] after a list (e.g. events[].title)",
      // JSONPath habits: "$.events[].title" names a key called "$" here, which no site has.
      itemProblem: (entry) =>
        /^\$(?:\.|\[|$)/.test(entry)
          ? `leave out the leading "$": write ${entry.replace(/^\$\.?/, "") || "events[].title"}`
          : null,
      help: "One per line, e.g. title, venue.city, events[].name. Everything else is dropped.",
    },
    {
      key: "maxItems",
      label: "Most items in a list",
      type: "number",
      integer: true,
      min: 1,
      max: 50,
      default: 10,
    },
    {
      key: "whenToUse",
      label: "When should the bot use this?",
      type: "text",
      required: true,
      maxLength: 300,
      placeholder: "Use this to answer questions about upcoming events and workshops.",
    },
  ],
  describe: (config) => config.whenToUse,
  async run(config, _args, ctx) {
    const data = await getJson(`${config.baseUrl}${config.path}`, { signal: ctx.signal });
    const projected = projectFields(data, config.fields, config.maxItems);
    if (projected === undefined) throw new ToolWorldError("The page had none of the expected fields");
    return projected;
  },

  category: "For every business",
  summary: "Reads one JSON file of your site and gives the bot only the fields you list.",
  labels: {
    es: "Consultando nuestra web",
    fr: "Consultation de notre site",
    de: "Prüfe unsere Website",
    ja: "ウェブサイトを確認しています",
  },
  example: {
    config: {
      baseUrl: "https://michi-cafe.example",
      path: "/api/events.json",
      fields: ["events[].title", "events[].startsAt", "events[].venue.name", "events[].seatsLeft"],
      maxItems: 5,
      whenToUse: "Use this to answer questions about upcoming events and workshops.",
    },
    args: {},
    fixtures: {
      "/api/events.json": {
        generatedAt: "2025-06-01T09:00:00Z",
        events: [
          {
            id: "ev_1",
            title: "Latte art workshop",
            startsAt: "2025-06-07T10:00:00+09:00",
            venue: { name: "Main room", internalCode: "R1" },
            seatsLeft: 4,
            organiserEmail: "staff@example.com",
          },
          {
            id: "ev_2",
            title: "Coffee tasting",
            startsAt: "2025-06-14T15:00:00+09:00",
            venue: { name: "Terrace", internalCode: "T" },
            seatsLeft: 0,
            organiserEmail: "staff@example.com",
          },
        ],
      },
    },
  },
});
