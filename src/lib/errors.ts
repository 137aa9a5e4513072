// One error class for everything the platform refuses on purpose. The code decides the HTTP status,
// so handlers throw meaning and the route wrapper turns it into a response.
//
// Errors are recognised by a brand, never by `instanceof`: Next may load this module more than once in the
// production build (one copy per bundle), and a class from one copy is not the class of another, so an
// `instanceof` check silently fails for an error thrown by the other copy. `Symbol.for` keys live in the
// runtime's global symbol registry, which every copy of the module (and every vm realm) shares.
const APP_ERROR = Symbol.for("michi.error.app");
const WORLD_ERROR = Symbol.for("michi.error.tool_world");

import "server-only";

export const ERROR_STATUS = {
  bad_request: 400,
  invalid_input: 400,
  unauthorized: 401,
  forbidden: 403,
  origin_not_allowed: 403,
  not_found: 404,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  budget_exhausted: 429,
  tenant_suspended: 403,
  /** The host page's verified-visitor token is forged, malformed, signed with another secret or too long-lived. */
  identity_invalid: 403,
  /** The host page's verified-visitor token has expired: the page must fetch a new one from its server. */
  identity_expired: 403,
  model_not_configured: 503,
  model_unavailable: 502,
  db_unavailable: 503,
  /** A part of the platform this request needs is not running here right now (the job queue). */
  unavailable: 503,
  internal: 500,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export class AppError extends Error {
  readonly [APP_ERROR] = true;
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: {
      fieldErrors?: Record<string, string[]>;
      retryAfterSec?: number;
      [k: string]: unknown;
    },
  ) {
    super(message);
    this.name = "AppError";
    this.status = ERROR_STATUS[code];
  }
}

function branded(e: unknown, brand: symbol): e is Error {
  return typeof e === "object" && e !== null && (e as Record<symbol, unknown>)[brand] === true;
}

/** True for an AppError from any copy of this module; the code must still be one this copy knows. */
export function isAppError(e: unknown): e is AppError {
  return branded(e, APP_ERROR) && Object.hasOwn(ERROR_STATUS, (e as { code?: unknown }).code as string);
}

/**
 * A fact about the world a tool pack met (404, timeout, bad JSON, a blocked address, a payload it cannot
 * read): the model gets its message and may adapt. Anything else a pack throws is a programmer error.
 */
export class ToolWorldError extends Error {
  readonly [WORLD_ERROR] = true;
  /** Set when the guarded fetch refused the address itself (the policy, not the site). */
  readonly blocked: boolean;
  /** Set when the site did not answer within the request's time limit (not worth trying again at once). */
  readonly timedOut: boolean;
  /** The site's HTTP status when it answered with an error, so a pack can word it (401: its key refused). */
  readonly status?: number;
  constructor(message: string, opts: { blocked?: boolean; timedOut?: boolean; status?: number } = {}) {
    super(message);
    this.name = "ToolWorldError";
    this.blocked = opts.blocked ?? false;
    this.timedOut = opts.timedOut ?? false;
    if (opts.status !== undefined) this.status = opts.status;
  }
}

/** True for a ToolWorldError from any copy of this module, with a message to hand to the model. */
export function isToolWorldError(e: unknown): e is ToolWorldError {
  return branded(e, WORLD_ERROR) && typeof (e as { message?: unknown }).message === "string";
}

/** JSON body for an error: never a stack, never internals. */
export function errorBody(e: AppError) {
  return { error: { code: e.code, message: e.message, ...(e.details ?? {}) } };
}

export function errorResponse(e: unknown, headers?: HeadersInit): Response {
  const err = isAppError(e) ? e : new AppError("internal", "Something went wrong on our side.");
  const h = new Headers(headers);
  if (err.details?.retryAfterSec) h.set("Retry-After", String(err.details.retryAfterSec));
  return Response.json(errorBody(err), { status: err.status, headers: h });
}
