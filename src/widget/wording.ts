// Using the widget's words (src/widget/i18n.ts): wording an error code. Filling in a template is
// src/shared/fill.ts.

import type { Strings } from "./i18n";

const CODE_KEYS: Record<string, keyof Strings> = {
  length: "cutLength",
  content_filter: "filtered",
  model_busy: "busy",
  model_error: "trouble",
  internal: "trouble",
  model_unavailable: "trouble",
  model_timeout: "timeout",
  idle_timeout: "timeout",
  first_byte_timeout: "timeout",
  interrupted: "interrupted",
  rate_limited: "rateLimited",
  budget_exhausted: "budget",
  identity_invalid: "identityInvalid",
  identity_expired: "identityExpired",
  model_not_configured: "unavailable",
  tenant_suspended: "unavailable",
  round_cap: "noAnswer",
  empty: "noAnswer",
  db_unavailable: "notSaved",
  invalid_input: "tooLong",
  payload_too_large: "tooLong",
  disconnected: "stopped",
};

/**
 * The widget's own words for an error code (from the stream or a JSON refusal): the server sends a code and
 * the panel words it in the conversation's language, so a visitor never reads the server's English. Codes it
 * does not know read as the generic error, never as the server's text.
 */
export function codeMessage(t: Strings, code: string): string {
  const k = Object.hasOwn(CODE_KEYS, code) ? CODE_KEYS[code] : undefined;
  return k ? t[k] : t.error;
}
