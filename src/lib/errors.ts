// One error class for everything the platform refuses on purpose. The code decides the HTTP status,
// so handlers throw meaning and the route wrapper turns it into a response.

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
  model_not_configured: 503,
  model_unavailable: 502,
  db_unavailable: 503,
  internal: 500,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export class AppError extends Error {
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

export function isAppError(e: unknown): e is AppError {
  return e instanceof AppError;
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
