import "server-only";
import { definePack } from "../registry";

// No network at all: the facts are typed into the admin form. The model asks for one topic (or all), so a
// question about the phone number does not drag the refund policy into every later round.

const TOPICS = ["address", "phone", "email", "hours", "policies"] as const;
type Topic = (typeof TOPICS)[number];

export const businessInfo = definePack({
  id: "get_business_info",
  name: "Business details",
  label: "Looking up our details",
  definition: {
    type: "function",
    function: {
      name: "get_business_info",
      description:
        "The business's own contact details and house rules: address, phone, e-mail, opening hours as written by the owner, and policies (payment, pets, reservations, returns).",
      parameters: {
        type: "object",
        properties: {
          topic: {
            type: "string",
            enum: [...TOPICS, "all"],
            description: "Which detail is needed; 'all' only when the visitor asks for several.",
          },
        },
        required: ["topic"],
        additionalProperties: false,
      },
    },
  },
  configFields: [
    {
      key: "address",
      label: "Address",
      type: "textarea",
      maxLength: 400,
      placeholder: "1-2-3 Michi Street, Springfield",
    },
    { key: "phone", label: "Phone", type: "text", maxLength: 40, placeholder: "+1 555 0100" },
    {
      key: "email",
      label: "E-mail",
      type: "text",
      format: "email",
      maxLength: 120,
      placeholder: "hello@example.com",
    },
    {
      key: "hours",
      label: "Opening hours",
      type: "textarea",
      maxLength: 600,
      help: "As you would say it to a customer, including holidays.",
    },
    {
      key: "policies",
      label: "Policies",
      type: "textarea",
      maxLength: 2000,
      help: "Payment, pets, reservations, returns: whatever customers often ask.",
    },
  ],
  async run(config, args) {
    const topic = args.topic as Topic | "all";
    const wanted = topic === "all" ? TOPICS : [topic];
    const out: Record<string, string> = {};
    for (const t of wanted) out[t] = config[t] || "not provided by the business";
    return out;
  },

  lacks: (config) =>
    TOPICS.some((t) => typeof config[t] === "string" && config[t].trim() !== "")
      ? null
      : "at least one of address, phone, e-mail, opening hours or policies",
  category: "For every business",
  summary: "Answers questions about your address, phone, e-mail, hours and policies from what you type here.",
  labels: {
    es: "Buscando nuestros datos",
    fr: "Recherche de nos coordonnées",
    de: "Suche unsere Kontaktdaten",
    ja: "店舗情報を確認しています",
  },
  example: {
    config: {
      address: "1-2-3 Michi Street, Springfield",
      phone: "+1 555 0100",
      email: "hello@michi-cafe.example",
      hours: "Mon–Fri 8:00–18:00, Sat 9:00–15:00, closed Sundays",
      policies: "Dogs welcome on the terrace. We take card and cash.",
    },
    args: { topic: "hours" },
  },
});
