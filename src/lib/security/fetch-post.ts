import "server-only";
import { Webhook } from "standardwebhooks";
import { type Agent, type Dispatcher, request } from "undici";
import { ToolWorldError } from "../errors";
import { discard, one, readCapped, requestFailure } from "./fetch-body";
import { checkUrlShape } from "./url-policy";

// The guarded fetcher's one write: a POST of a call the visitor confirmed (post_json). Same door as getJson
// (URL policy as text, then the connector's address check), but a redirect is an error, never followed: a
// write must reach the address the owner saved, and its body must not travel on to another one.

export type PostJsonOptions = {
  signal?: AbortSignal;
  /** The stored key of the confirmed call: sent as Idempotency-Key and as the signature's webhook-id. */
  idempotencyKey: string;
  /** The pack's whsec_ secret: the request carries Standard Webhooks signature headers. */
  signingSecret?: string;
  /** A credential from a secret config field (Cal.com's API key), sent as `Authorization: Bearer`. */
  bearer?: string;
  /** Fixed headers the business's API asks for (Cal.com's cal-api-version). */
  headers?: Record<string, string>;
  /** Test seam for the signature's instant. */
  now?: Date;
};

type Door = { agent: Agent; allowHosts: readonly string[]; timeoutMs: number; maxBytes: number };

/** The Standard Webhooks headers for one body (https://www.standardwebhooks.com/, "Signature scheme"). */
export function signatureHeaders(secret: string, id: string, body: string, at: Date): Record<string, string> {
  return {
    "webhook-id": id,
    "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
    "webhook-signature": new Webhook(secret).sign(id, at, body),
  };
}

export async function postJsonWith(door: Door, url: string, payload: unknown, o: PostJsonOptions) {
  const shape = checkUrlShape(url, door.allowHosts);
  if (!shape.ok) throw new ToolWorldError(`This address is not allowed: ${shape.message}`);
  const body = JSON.stringify(payload);
  const headers: Record<string, string> = {
    accept: "application/json",
    "content-type": "application/json",
    "user-agent": "michi-chat tool pack",
    ...o.headers,
    ...(o.bearer ? { authorization: `Bearer ${o.bearer}` } : {}),
    "idempotency-key": o.idempotencyKey,
    ...(o.signingSecret
      ? signatureHeaders(o.signingSecret, o.idempotencyKey, body, o.now ?? new Date())
      : {}),
  };
  const timeout = AbortSignal.timeout(door.timeoutMs);
  const signal = o.signal ? AbortSignal.any([o.signal, timeout]) : timeout;
  let res: Dispatcher.ResponseData;
  try {
    res = await request(shape.url, { method: "POST", dispatcher: door.agent, signal, headers, body });
  } catch (err) {
    throw requestFailure(err, timeout, o.signal);
  }
  const status = res.statusCode;
  if (status < 200 || status >= 300) {
    discard(res.body);
    throw new ToolWorldError(
      status >= 300 && status < 400
        ? "The site redirected the request; it was not sent on"
        : `The site answered with HTTP ${status}`,
      { status },
    );
  }
  const declared = Number(one(res.headers["content-length"]) ?? "0");
  if (declared > door.maxBytes) {
    discard(res.body);
    throw new ToolWorldError(`The response is larger than ${Math.round(door.maxBytes / 1024)} KB`);
  }
  const text = await readCapped(res.body, door.maxBytes);
  // An empty 2xx (204) is an accepted request with nothing to say.
  if (text.trim() === "") return {};
  try {
    return JSON.parse(text);
  } catch {
    throw new ToolWorldError("The site did not answer with valid JSON");
  }
}
