// The Graph API's answers as the fake Graph API gives them: the error envelope { error: { message, type, code,
// error_subcode?, error_data: { messaging_product, details }, fbtrace_id } } with Meta's codes and HTTP statuses
// (https://developers.facebook.com/documentation/business-messaging/whatsapp/support/error-codes/ and
// https://developers.facebook.com/docs/graph-api/guides/error-handling), and the content limits Meta checks
// on a send (reply buttons: https://whatsapp.github.io/WhatsApp-Nodejs-SDK/api-reference/types/ButtonObject,
// Meta's own SDK reference: titles 1-20 characters and unique, ids up to 256).

/** The failures a test can script for the next send(s). */
export type GraphFault =
  | "re-engagement" // 131047: outside the 24-hour window
  | "undeliverable" // 131026
  | "expired-token" // 190 / 463
  | "invalid-token" // 190
  | "no-permission" // 10
  | "rate-limit" // 130429
  | "server-error"; // HTTP 500, Meta's temporary 131000

export const trace = () => `A${Math.random().toString(36).slice(2, 12)}`;

export type Answer = { status: number; body: unknown };

export function graphError(
  status: number,
  code: number,
  message: string,
  extra: Record<string, unknown> = {},
): Answer {
  return {
    status,
    body: { error: { message, type: "OAuthException", code, ...extra, fbtrace_id: trace() } },
  };
}

export const details = (d: string) => ({ error_data: { messaging_product: "whatsapp", details: d } });

export const FAULTS: Record<GraphFault, () => Answer> = {
  "re-engagement": () =>
    graphError(
      400,
      131047,
      "(#131047) Re-engagement message",
      details(
        "Message failed to send because more than 24 hours have passed since the customer last replied to this number.",
      ),
    ),
  undeliverable: () =>
    graphError(
      400,
      131026,
      "(#131026) Message Undeliverable",
      details("Unable to deliver the message to this number."),
    ),
  "expired-token": () =>
    graphError(
      401,
      190,
      "Error validating access token: Session has expired on Monday, 01-Dec-26 10:00:00 PST.",
      {
        error_subcode: 463,
      },
    ),
  "invalid-token": () => graphError(401, 190, "Invalid OAuth access token - Cannot parse access token"),
  "no-permission": () => graphError(403, 10, "(#10) Application does not have permission for this action"),
  "rate-limit": () =>
    graphError(
      400,
      130429,
      "(#130429) Rate limit hit",
      details("Cloud API message throughput has been reached."),
    ),
  "server-error": () =>
    graphError(500, 131000, "(#131000) Something went wrong", details("Something went wrong.")),
};

export const invalidParam = (message: string): Answer => graphError(400, 100, `(#100) ${message}`);

/** Meta's content limits: text body ≤ 4,096; reply buttons 1–3, titles ≤ 20, ids ≤ 256 and unique; body ≤ 1,024. */
export function checkContent(type: string, body: Record<string, unknown>): Answer | null {
  if (type === "text") {
    const text = (body.text as { body?: unknown } | undefined)?.body;
    if (typeof text !== "string" || text.length === 0)
      return invalidParam("The parameter text['body'] is required.");
    if (text.length > 4096) return invalidParam("Param text['body'] must be at most 4096 characters long.");
    return null;
  }
  if (type === "interactive") {
    const i = body.interactive as
      | { type?: unknown; body?: { text?: unknown }; action?: { buttons?: unknown } }
      | undefined;
    if (i?.type !== "button") return invalidParam("Only reply button messages are faked.");
    const text = i.body?.text;
    if (typeof text !== "string" || text.length === 0 || text.length > 1024)
      return graphError(
        400,
        131009,
        "(#131009) Parameter value is not valid",
        details("Body text must be 1 to 1024 characters."),
      );
    const buttons = Array.isArray(i.action?.buttons)
      ? (i.action.buttons as { type?: unknown; reply?: { id?: unknown; title?: unknown } }[])
      : [];
    if (buttons.length < 1 || buttons.length > 3)
      return graphError(
        400,
        131009,
        "(#131009) Parameter value is not valid",
        details("Buttons count should be between 1 and 3."),
      );
    const ids = new Set<unknown>();
    const titles = new Set<unknown>();
    for (const b of buttons) {
      const { id, title } = b.reply ?? {};
      if (b.type !== "reply" || typeof id !== "string" || typeof title !== "string")
        return invalidParam("Each button needs type reply with an id and a title.");
      if (title.length === 0 || title.length > 20)
        return graphError(
          400,
          131009,
          "(#131009) Parameter value is not valid",
          details("Button title length invalid. Min length: 1, Max length: 20."),
        );
      if (id.length > 256 || ids.has(id))
        return graphError(
          400,
          131009,
          "(#131009) Parameter value is not valid",
          details("Button ids must be unique and at most 256 characters."),
        );
      if (titles.has(title))
        return graphError(
          400,
          131009,
          "(#131009) Parameter value is not valid",
          details("Button titles must be unique within the message."),
        );
      ids.add(id);
      titles.add(title);
    }
    return null;
  }
  return invalidParam(`The fake Graph API does not accept type ${type}.`);
}
