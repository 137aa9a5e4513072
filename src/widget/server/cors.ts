// CORS for the widget endpoints. The allowed origin is echoed (never "*"), and every answer varies by Origin
// so a shared cache never hands one site's answer to another.

import "server-only";

export function corsHeaders(origin: string | null): Record<string, string> {
  const h: Record<string, string> = { Vary: "Origin" };
  if (origin) {
    h["Access-Control-Allow-Origin"] = origin;
    h["Access-Control-Expose-Headers"] = "Retry-After";
  }
  return h;
}

export function preflightHeaders(origin: string): Record<string, string> {
  return {
    ...corsHeaders(origin),
    "Access-Control-Allow-Methods": "POST, OPTIONS",
    "Access-Control-Allow-Headers": "Authorization, Content-Type, X-Michi-Identity",
    "Access-Control-Max-Age": "600",
  };
}
