import type { IncomingHttpHeaders } from "node:http";
import { createServer } from "node:https";
import type { AddressInfo } from "node:net";
import { certificates } from "./fixture-site";

// A fake WhatsApp Cloud API (the Graph API's /{phone-number-id}/messages and /{phone-number-id}) on loopback,
// over https with a throwaway CA, reached through the operator allowlist and extra CA like the packs' fixture
// site. It speaks Meta's dialect: the send answer { messaging_product, contacts, messages: [{ id }] }, the
// mark-read answer { success: true }, and the Graph error envelope { error: { message, type, code,
// error_subcode?, error_data?, fbtrace_id } } with the codes and HTTP statuses Meta uses:
//   https://developers.facebook.com/documentation/business-messaging/whatsapp/reference/messages (send)
//   https://developers.facebook.com/documentation/business-messaging/whatsapp/typing-indicators/ (read + typing)
//   https://developers.facebook.com/documentation/business-messaging/whatsapp/support/error-codes/ (codes)
//   https://developers.facebook.com/docs/graph-api/guides/error-handling (190 / 463, 100 / 33, 10)
// It checks requests the way Meta does (token, phone number id, messaging_product, text and button limits), so
// a client mistake fails here as it would there, and records everything it was sent.

export type GraphRequest = {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body (null for a GET or a body that was not JSON). */
  body: Record<string, unknown> | null;
  at: number;
};

/** A message the fake accepted, with the wamid it answered. */
export type GraphSent = { id: string; to: string; type: string; body: Record<string, unknown> };

/** The failures a test can script for the next send(s). */
export type GraphFault =
  | "re-engagement" // 131047: outside the 24-hour window
  | "undeliverable" // 131026
  | "expired-token" // 190 / 463
  | "invalid-token" // 190
  | "no-permission" // 10
  | "rate-limit" // 130429
  | "server-error"; // HTTP 500, Meta's temporary 131000

export type FakeGraphApi = {
  /** https://localhost:PORT/v23.0, to pass as the client's baseUrl. */
  baseUrl: string;
  /** localhost:PORT, for the allowlist. */
  host: string;
  caPem: string;
  phoneNumberId: string;
  accessToken: string;
  requests: GraphRequest[];
  /** Messages accepted (text, interactive …), in order. */
  sent: GraphSent[];
  /** Read receipts accepted: message id and whether a typing indicator was asked for. */
  reads: { messageId: string; typing: boolean }[];
  /** The next `times` messages or phone number reads (checkConnection) fail with `fault`; read receipts never do. */
  failNext(fault: GraphFault, times?: number): void;
  /** Every send to this customer fails with 131047 until reopened, as after 24 hours of silence. */
  closeWindow(waId: string): void;
  openWindow(waId: string): void;
  /** Resolves once `n` messages have been accepted. */
  waitForSent(n: number, timeoutMs?: number): Promise<GraphSent[]>;
  close(): Promise<void>;
};

const trace = () => `A${Math.random().toString(36).slice(2, 12)}`;

type Answer = { status: number; body: unknown };

function graphError(
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

const details = (d: string) => ({ error_data: { messaging_product: "whatsapp", details: d } });

const FAULTS: Record<GraphFault, () => Answer> = {
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

const invalidParam = (message: string): Answer => graphError(400, 100, `(#100) ${message}`);

export async function startFakeGraphApi(
  opts: { phoneNumberId?: string; accessToken?: string; version?: string } = {},
): Promise<FakeGraphApi> {
  const { caPem, key, cert } = await certificates();
  const phoneNumberId = opts.phoneNumberId ?? "106540352299001";
  const accessToken = opts.accessToken ?? "EAAG-fake-graph-token";
  const version = opts.version ?? "v23.0";
  const requests: GraphRequest[] = [];
  const sent: GraphSent[] = [];
  const reads: { messageId: string; typing: boolean }[] = [];
  const faults: GraphFault[] = [];
  const closed = new Set<string>();
  const waiters: { n: number; resolve: () => void }[] = [];
  let seq = 0;

  function send(body: Record<string, unknown>): Answer {
    if (body.messaging_product !== "whatsapp")
      return invalidParam("The parameter messaging_product is required.");
    if (body.status === "read") {
      if (typeof body.message_id !== "string") return invalidParam("The parameter message_id is required.");
      const typing = (body.typing_indicator as { type?: unknown } | undefined)?.type === "text";
      reads.push({ messageId: body.message_id, typing });
      return { status: 200, body: { success: true } };
    }
    const to = body.to;
    if (typeof to !== "string" || !/^\+?\d{6,15}$/.test(to))
      return invalidParam("The parameter to is required.");
    const type = typeof body.type === "string" ? body.type : "text";
    const problem = checkContent(type, body);
    if (problem) return problem;
    const fault = faults.shift();
    if (fault) return FAULTS[fault]();
    if (closed.has(to.replace(/^\+/, ""))) return FAULTS["re-engagement"]();
    const id = `wamid.FAKE${String(++seq).padStart(6, "0")}`;
    sent.push({ id, to, type, body });
    for (const w of waiters.splice(0)) {
      if (sent.length >= w.n) w.resolve();
      else waiters.push(w);
    }
    return {
      status: 200,
      body: {
        messaging_product: "whatsapp",
        contacts: [{ input: to, wa_id: to.replace(/^\+/, "") }],
        messages: [{ id }],
      },
    };
  }

  function route(
    method: string,
    path: string,
    auth: string | undefined,
    body: Record<string, unknown> | null,
  ): Answer {
    const m = new RegExp(`^/${version}/([^/]+)(/messages)?$`).exec(path);
    if (!m)
      return {
        status: 404,
        body: {
          error: {
            message: "Unknown path components",
            type: "OAuthException",
            code: 2500,
            fbtrace_id: trace(),
          },
        },
      };
    if (!auth?.startsWith("Bearer "))
      return graphError(
        400,
        2500,
        "An active access token must be used to query information about the current user.",
      );
    if (auth.slice(7) !== accessToken) return FAULTS["invalid-token"]();
    if (m[1] !== phoneNumberId) {
      const verb = method === "GET" ? "get" : "post";
      return {
        status: 400,
        body: {
          error: {
            message: `Unsupported ${verb} request. Object with ID '${m[1]}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.`,
            type: "GraphMethodException",
            code: 100,
            error_subcode: 33,
            fbtrace_id: trace(),
          },
        },
      };
    }
    if (method === "GET" && !m[2]) {
      const fault = faults.shift();
      if (fault) return FAULTS[fault]();
      return {
        status: 200,
        body: {
          verified_name: "Michi Test Shop",
          display_phone_number: "+1 555-010-1234",
          id: phoneNumberId,
          quality_rating: "GREEN",
        },
      };
    }
    if (method === "POST" && m[2])
      return body ? send(body) : invalidParam("The request body is not valid JSON.");
    return graphError(400, 100, "Unsupported request method");
  }

  const server = createServer({ key, cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const url = new URL(req.url ?? "/", "https://localhost");
      let body: Record<string, unknown> | null = null;
      try {
        body = chunks.length
          ? (JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>)
          : null;
      } catch {
        body = null;
      }
      requests.push({
        method: req.method ?? "GET",
        path: url.pathname,
        query: url.searchParams,
        headers: req.headers,
        body,
        at: Date.now(),
      });
      const a = route(req.method ?? "GET", url.pathname, req.headers.authorization, body);
      res.writeHead(a.status, { "content-type": "application/json" }).end(JSON.stringify(a.body));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const port = (server.address() as AddressInfo).port;

  return {
    baseUrl: `https://localhost:${port}/${version}`,
    host: `localhost:${port}`,
    caPem,
    phoneNumberId,
    accessToken,
    requests,
    sent,
    reads,
    failNext(fault, times = 1) {
      for (let i = 0; i < times; i++) faults.push(fault);
    },
    closeWindow: (waId) => void closed.add(waId),
    openWindow: (waId) => void closed.delete(waId),
    waitForSent(n, timeoutMs = 20_000) {
      if (sent.length >= n) return Promise.resolve(sent);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`expected ${n} WhatsApp sends, got ${sent.length}`)),
          timeoutMs,
        );
        waiters.push({
          n,
          resolve: () => {
            clearTimeout(timer);
            resolve(sent);
          },
        });
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Meta's content limits: text body ≤ 4,096; reply buttons 1–3, titles ≤ 20, ids ≤ 256 and unique; body ≤ 1,024. */
function checkContent(type: string, body: Record<string, unknown>): Answer | null {
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
      ids.add(id);
    }
    return null;
  }
  return invalidParam(`The fake Graph API does not accept type ${type}.`);
}
