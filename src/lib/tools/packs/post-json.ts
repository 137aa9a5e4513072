import "server-only";
import { FIELD_PATH, projectFields } from "../project";
import { type ConfirmField, definePack, postJson, ToolWorldError } from "../registry";

// The generic write pack: sends what the visitor asked for (an order, a callback request) as JSON to one
// endpoint of the business's own site. The owner declares the fields the model fills; every call waits for
// the visitor's Confirm on a card showing exactly those values, and goes out once, with the call's
// Idempotency-Key and a Standard Webhooks signature so the endpoint can tell it is michi and ignore a repeat.

const TYPES = { text: "string", number: "number", integer: "integer", "yes/no": "boolean" } as const;

/** One declared field: `key | label | type | required or optional | a sentence for the model`. */
const DECLARED =
  /^([a-zA-Z][a-zA-Z0-9_]{0,39})\s*\|\s*([^|]{1,60}?)\s*\|\s*(text|number|integer|yes\/no)\s*\|\s*(required|optional)\s*\|\s*([^|]{1,200}?)\s*$/;

type Declared = {
  key: string;
  label: string;
  type: keyof typeof TYPES;
  required: boolean;
  description: string;
};

export function declaredFields(lines: readonly string[]): Declared[] {
  return lines.flatMap((line) => {
    const m = DECLARED.exec(line.trim());
    if (!m) return [];
    const [, key, label, type, req, description] = m as unknown as string[];
    return [
      {
        key: key!,
        label: label!,
        type: type as Declared["type"],
        required: req === "required",
        description: description!,
      },
    ];
  });
}

/** The model's JSON schema, built from the owner's declared fields; nothing else is accepted. */
export function schemaOf(lines: readonly string[]) {
  const fields = declaredFields(lines);
  return {
    type: "object" as const,
    properties: Object.fromEntries(
      fields.map((f) => [
        f.key,
        {
          type: TYPES[f.type],
          description: f.description,
          ...(f.type === "text" ? { minLength: 1, maxLength: 500 } : {}),
        },
      ]),
    ),
    required: fields.filter((f) => f.required).map((f) => f.key),
    additionalProperties: false,
  };
}

function cardFields(lines: readonly string[]): ConfirmField[] {
  return declaredFields(lines).map((f) => ({ key: f.key, label: f.label }));
}

export const postJsonPack = definePack({
  id: "post_json",
  name: "Send to your own endpoint",
  label: "Sending your request",
  definition: {
    type: "function",
    function: {
      name: "post_json",
      description: "Sends the visitor's request to the business. The visitor confirms it first.",
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
    { key: "path", label: "Path to send to", type: "path", required: true, placeholder: "/api/orders" },
    {
      key: "fields",
      label: "Fields the bot fills in",
      type: "list",
      required: true,
      maxItems: 12,
      itemMaxLength: 340,
      itemPattern: DECLARED,
      itemMessage:
        "write key | label | text, number, integer or yes/no | required or optional | one sentence for the bot",
      help: "One per line, e.g. partySize | Party size | integer | required | How many people are coming.",
    },
    {
      key: "cardTitle",
      label: "Title of the confirmation card",
      type: "text",
      required: true,
      maxLength: 80,
      placeholder: "Send this order request?",
    },
    {
      key: "responseFields",
      label: "Answer fields to keep",
      type: "list",
      maxItems: 20,
      itemMaxLength: 120,
      itemPattern: FIELD_PATH,
      itemMessage: "use names joined by dots (e.g. reference or order.status)",
      help: "What the bot may read of your endpoint's answer. Everything else is dropped.",
    },
    {
      key: "whenToUse",
      label: "When should the bot use this?",
      type: "text",
      required: true,
      maxLength: 300,
      placeholder: "Use this when the visitor wants to order a cake for pick-up.",
    },
    {
      key: "signingSecret",
      label: "Signing secret",
      type: "secret",
      maxLength: 200,
      generate: "whsec",
      help: "Made by michi on the first save and shown once; your endpoint verifies each request with it. Leave empty.",
    },
  ],
  describe: (config) =>
    `${config.whenToUse} The visitor is shown the values and must confirm before it is sent.`,
  parametersFor: (config) => schemaOf(config.fields),
  confirm: { title: (config) => config.cardTitle, fields: (config) => cardFields(config.fields) },
  async run(config, args, ctx) {
    if (!ctx.idempotencyKey) throw new ToolWorldError("Nothing is sent without the visitor's confirmation");
    const answer = await postJson(`${config.baseUrl}${config.path}`, args, {
      signal: ctx.signal,
      idempotencyKey: ctx.idempotencyKey,
      signingSecret: config.signingSecret,
    });
    // The model learns only that it was accepted, plus the fields the owner allowed.
    const kept = config.responseFields.length ? projectFields(answer, config.responseFields, 10) : undefined;
    return { sent: true, ...(kept && !Array.isArray(kept) ? kept : {}) };
  },

  category: "For every business",
  summary: "Sends what a visitor asked for to your site, after they confirm the exact values.",
  labels: {
    es: "Enviando tu solicitud",
    fr: "Envoi de votre demande",
    de: "Sende deine Anfrage",
    ja: "リクエストを送信しています",
  },
  example: {
    config: {
      baseUrl: "https://michi-cafe.example",
      path: "/api/cake-orders",
      fields: [
        "cake | Cake | text | required | Which cake the visitor wants.",
        "pickupDate | Pick-up date | text | required | The pick-up day as YYYY-MM-DD.",
        "candles | Candles | yes/no | optional | Whether to add candles.",
      ],
      cardTitle: "Order this cake?",
      responseFields: ["reference"],
      whenToUse: "Use this when the visitor wants to order a cake for pick-up.",
      signingSecret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
    },
    args: { cake: "Chocolate", pickupDate: "2025-06-07", candles: true },
    fixtures: { "/api/cake-orders": { reference: "C-1042", internal: "ignored" } },
  },
});
