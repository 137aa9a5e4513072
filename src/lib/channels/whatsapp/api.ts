import "server-only";
import {
  type ChannelFailure,
  type ChannelResult,
  type ChannelWire,
  channelBase,
  defaultChannelWire,
  isWireFailure,
  retryAfterSeconds,
  type WireAnswer,
  wireFailure,
} from "../wire";

// The WhatsApp Cloud API calls a connection needs, on the Graph API
// (https://developers.facebook.com/docs/whatsapp/cloud-api/reference/messages). Every call answers a
// ChannelResult: the message id, or Meta's error code with a sentence an admin can act on and whether trying
// again later can help. The access token only ever travels in the Authorization header.

export const GRAPH_HOST = "graph.facebook.com";
const GRAPH_VERSION = "v23.0";

/**
 * Reply buttons: at most 3, each title at most 20 characters (ids 256), the body at most 1,024: Meta's
 * https://developers.facebook.com/docs/whatsapp/cloud-api/messages/interactive-reply-buttons-messages
 */
export const WA_MAX_BUTTONS = 3;
export const WA_BUTTON_TITLE_MAX = 20;
export const WA_BUTTON_BODY_MAX = 1024;

export type WhatsAppClientOptions = {
  phoneNumberId: string;
  accessToken: string;
  /** The Graph API origin and version; only the allowlist lets it point anywhere but graph.facebook.com. */
  baseUrl?: string;
  wire?: ChannelWire;
};

export type WaButton = { id: string; title: string };

export type WhatsAppClient = {
  sendText(to: string, body: string): Promise<ChannelResult>;
  sendButtons(to: string, body: string, buttons: readonly WaButton[]): Promise<ChannelResult>;
  /** Marks the customer's message read (blue ticks); with `typing`, shows "typing…" for up to 25 seconds. */
  markRead(messageId: string, opts?: { typing?: boolean }): Promise<ChannelResult>;
  /** Reads the phone number with the token: proves both, and names what is wrong in words. */
  checkConnection(): Promise<
    ChannelResult<{ displayPhoneNumber: string | null; verifiedName: string | null }>
  >;
};

export function createWhatsAppClient(opts: WhatsAppClientOptions): WhatsAppClient {
  const wire = opts.wire ?? defaultChannelWire();
  const base = channelBase(
    opts.baseUrl ?? `https://${GRAPH_HOST}/${GRAPH_VERSION}`,
    GRAPH_HOST,
    wire.allowHosts,
  );
  const phone = encodeURIComponent(opts.phoneNumberId);
  const bearer = opts.accessToken;

  async function post(payload: Record<string, unknown>): Promise<WireAnswer | ChannelFailure> {
    const a = await wire.send("POST", `${base}/${phone}/messages`, {
      bearer,
      json: { messaging_product: "whatsapp", ...payload },
    });
    return isWireFailure(a) ? wireFailure(a) : a;
  }

  async function message(payload: Record<string, unknown>): Promise<ChannelResult> {
    const a = await post({ recipient_type: "individual", ...payload });
    if ("ok" in a) return a;
    const id = (a.json as { messages?: { id?: unknown }[] } | null)?.messages?.[0]?.id;
    if (a.status >= 200 && a.status < 300 && typeof id === "string") return { ok: true, id };
    return graphFailure(a);
  }

  return {
    sendText: (to, body) => message({ to, type: "text", text: { preview_url: false, body } }),

    async sendButtons(to, body, buttons) {
      if (buttons.length === 0 || buttons.length > WA_MAX_BUTTONS)
        return invalid(`WhatsApp allows 1 to ${WA_MAX_BUTTONS} reply buttons`);
      if (body.length > WA_BUTTON_BODY_MAX)
        return invalid(`A message with buttons can have at most ${WA_BUTTON_BODY_MAX} characters`);
      return message({
        to,
        type: "interactive",
        interactive: {
          type: "button",
          body: { text: body },
          action: {
            buttons: distinctButtons(buttons).map((b) => ({ type: "reply", reply: b })),
          },
        },
      });
    },

    async markRead(messageId, o = {}) {
      const a = await post({
        status: "read",
        message_id: messageId,
        ...(o.typing ? { typing_indicator: { type: "text" } } : {}),
      });
      if ("ok" in a) return a;
      if (a.status >= 200 && a.status < 300 && (a.json as { success?: unknown } | null)?.success === true)
        return { ok: true, id: messageId };
      return graphFailure(a);
    },

    async checkConnection() {
      const a = await wire.send("GET", `${base}/${phone}?fields=display_phone_number,verified_name`, {
        bearer,
      });
      if (isWireFailure(a)) return wireFailure(a);
      const j = a.json as { id?: unknown; display_phone_number?: unknown; verified_name?: unknown } | null;
      if (a.status >= 200 && a.status < 300 && typeof j?.id === "string") {
        return {
          ok: true,
          id: j.id,
          displayPhoneNumber: typeof j.display_phone_number === "string" ? j.display_phone_number : null,
          verifiedName: typeof j.verified_name === "string" ? j.verified_name : null,
        };
      }
      return graphFailure(a);
    },
  };
}

/** Shortens a title to Meta's 20 characters at a word where it can, so a long starter still fits. */
export function buttonTitle(title: string, max = WA_BUTTON_TITLE_MAX): string {
  const t = title.trim().replace(/\s+/g, " ");
  if (t.length <= max) return t;
  const room = t.slice(0, max - 1);
  // The word ends exactly at the room's edge when the next character is a space.
  const space = t[room.length] === " " ? room.length : room.lastIndexOf(" ");
  return `${(space >= max / 2 ? room.slice(0, space) : room).trimEnd()}…`;
}

/**
 * Meta refuses a message whose buttons share a title or an id (131009), which shortening can cause ("What are
 * your opening hours on Monday?" and "… on Sunday?"): a repeated id is dropped, a repeated title numbered.
 */
function distinctButtons(buttons: readonly WaButton[]): WaButton[] {
  const ids = new Set<string>();
  const titles = new Set<string>();
  const out: WaButton[] = [];
  for (const b of buttons) {
    if (ids.has(b.id)) continue;
    let title = buttonTitle(b.title);
    for (let n = 2; titles.has(title); n++)
      title = `${buttonTitle(b.title, WA_BUTTON_TITLE_MAX - String(n).length - 1)} ${n}`;
    ids.add(b.id);
    titles.add(title);
    out.push({ id: b.id, title });
  }
  return out;
}

function invalid(message: string): ChannelFailure {
  return { ok: false, code: "invalid", message, retryable: false, retryAfter: null };
}

type GraphError = {
  code?: unknown;
  error_subcode?: unknown;
  message?: unknown;
  error_data?: { details?: unknown };
};

// Codes from https://developers.facebook.com/docs/whatsapp/cloud-api/support/error-codes: the throttles and
// Meta's own temporary failures are worth another try; the rest need someone to change something.
const RETRYABLE = new Set([1, 2, 4, 80007, 130429, 131000, 131016, 131056, 133004]);

const WORDS: Record<number, string> = {
  0: "The access token could not be used; generate a new one in Meta's Business settings",
  3: "The app is not allowed to use the WhatsApp Cloud API",
  10: "The access token lacks the whatsapp_business_messaging permission",
  100: "Meta refused the request (a wrong phone number id, or a parameter it does not accept)",
  190: "The access token has expired or was revoked; generate a new one in Meta's Business settings",
  200: "The access token lacks the permission for this phone number",
  131026: "WhatsApp could not deliver the message to this number",
  131047: "More than 24 hours have passed since the customer last wrote, so only a template may be sent",
  131051: "WhatsApp does not support this message type",
  131030: "This number is not on the test number's allowed list",
  133010: "The phone number is not registered with the WhatsApp Cloud API",
  368: "Meta has temporarily blocked this account for policy violations",
};

/** Meta's error envelope (`{ error: { code, error_subcode, message, error_data } }`) as a ChannelResult. */
function graphFailure(a: WireAnswer): ChannelFailure {
  const e = ((a.json as { error?: GraphError } | null)?.error ?? {}) as GraphError;
  const code = typeof e.code === "number" ? e.code : null;
  const sub = typeof e.error_subcode === "number" ? e.error_subcode : null;
  const retryable = code !== null ? RETRYABLE.has(code) : a.status >= 500 || a.status === 429;
  let message = code !== null ? WORDS[code] : undefined;
  // 100 with subcode 33: "Object with ID … does not exist, cannot be loaded due to missing permissions".
  if (code === 100 && sub === 33)
    message = "This phone number id does not exist or the access token cannot see it";
  if (code === 190 && sub === 463)
    message = "The access token has expired; generate a new one in Meta's Business settings";
  if (!message) {
    const details = typeof e.error_data?.details === "string" ? e.error_data.details : null;
    const said = typeof e.message === "string" ? e.message : null;
    message = details ?? said ?? `The Graph API answered HTTP ${a.status}`;
  }
  return {
    ok: false,
    code: code !== null ? String(code) : `http_${a.status}`,
    message,
    retryable,
    retryAfter: retryAfterSeconds(a.retryAfterHeader),
  };
}
