import "server-only";
import { DEFAULT_CONSENTS } from "@/shared/consent";
import { definePack } from "../registry";

// Hand-off to a person. No network: the pack's only effect is on the visitor's screen. When the model calls it,
// the chat loop tells the panel (a `handoff` event, because `ui` says so) to show the contact form under the
// answer. The visitor's name, e-mail and phone go from that form straight to POST /api/widget/[key]/contact;
// the model only ever learns that a form was shown.

export const DEFAULT_CONSENT = DEFAULT_CONSENTS.en;

const DEFAULT_WHEN =
  "the visitor asks to talk to a person, wants something you cannot do in this chat (a booking, an order, a complaint), or you could not answer them";

export const requestHuman = definePack({
  id: "request_human",
  label: "Offering a contact form",
  definition: {
    type: "function",
    function: {
      name: "request_human",
      description:
        "Shows the visitor a short contact form so a person from the business can get back to them. Call it when the visitor asks to talk to a person or needs help you cannot give.",
      parameters: {
        type: "object",
        properties: {
          topic: {
            type: "string",
            description:
              "A few words on what the visitor needs help with (kept in the conversation log for the business).",
          },
        },
        required: [],
        additionalProperties: false,
      },
    },
  },
  configFields: [
    {
      key: "when",
      label: "When the assistant offers it",
      type: "textarea",
      maxLength: 400,
      default: DEFAULT_WHEN,
      help: "Finish the sentence “Offer the contact form when …”.",
    },
    {
      key: "consentText",
      label: "Consent text",
      type: "textarea",
      maxLength: 500,
      default: DEFAULT_CONSENT,
      help: "Shown above the form's send button; the visitor ticks it to send. Stored with each request.",
    },
  ],
  async run() {
    // Nothing about the visitor: their details never pass through the model.
    return {
      form_shown: true,
      note: "A contact form is now shown under your reply. In one short sentence, tell the visitor they can leave their details there and someone will get back to them. Do not ask for an e-mail address or phone number in the chat.",
    };
  },
  describe(config) {
    const when = typeof config.when === "string" && config.when.trim() ? config.when.trim() : DEFAULT_WHEN;
    return `Shows the visitor a contact form so a person from the business can get back to them. Offer it when ${when}.`;
  },
  ui: "contact_form",

  category: "For every business",
  summary:
    "Lets the assistant offer a contact form when a visitor wants a person; requests arrive in your Inbox.",
  promptHint:
    "When the visitor wants a person or you cannot help, call request_human; never collect contact details in the chat.",
  labels: {
    es: "Abriendo un formulario de contacto",
    fr: "Ouverture d'un formulaire de contact",
    de: "Öffne ein Kontaktformular",
    ja: "お問い合わせフォームを表示しています",
  },
  example: { config: {}, args: { topic: "a large catering order" } },
});
