import type { IncomingHttpHeaders } from "node:http";
import { createServer } from "node:https";
import type { AddressInfo } from "node:net";
import {
  type Answer,
  checkContent,
  FAULTS,
  type GraphFault,
  graphError,
  invalidParam,
  trace,
} from "./fake-graph-dialect";
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
  /** Another business's number and its token, which this fake then accepts as well. */
  addNumber(phoneNumberId: string, accessToken: string): void;
  /** Resolves once `n` messages have been accepted. */
  waitForSent(n: number, timeoutMs?: number): Promise<GraphSent[]>;
  close(): Promise<void>;
};

export async function startFakeGraphApi(
  opts: { phoneNumberId?: string; accessToken?: string; version?: string } = {},
): Promise<FakeGraphApi> {
  const { caPem, key, cert } = await certificates();
  const phoneNumberId = opts.phoneNumberId ?? "106540352299001";
  const accessToken = opts.accessToken ?? "EAAG-fake-graph-token";
  const version = opts.version ?? "v23.0";
  const requests: GraphRequest[] = [];
  // Each number the fake knows, with the one token that may use it (a second business's number: addNumber).
  const numbers = new Map([[phoneNumberId, accessToken]]);
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
    if (![...numbers.values()].includes(auth.slice(7))) return FAULTS["invalid-token"]();
    if (numbers.get(m[1] ?? "") !== auth.slice(7)) {
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
          id: m[1],
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
    addNumber: (id, token) => void numbers.set(id, token),
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
