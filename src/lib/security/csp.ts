// The Content-Security-Policy of the admin and sign-in pages. Scripts run only with this response's nonce
// (Next puts it on its own scripts, read from the request's policy header) or when loaded by such a script
// ('strict-dynamic': the page's chunks, and the widget preview's /widget.js). An injected <script> or inline
// handler has no nonce and does not run. Styles are left alone: React renders style attributes, which a
// nonce cannot allow.

/** A fresh nonce: 128 random bits, base64. */
import "server-only";

export function newNonce(): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString("base64");
}

export function adminCsp(nonce: string, opts: { dev?: boolean } = {}): string {
  return [
    // React's development build evaluates code for its error overlay; production never does.
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${opts.dev ? " 'unsafe-eval'" : ""}`,
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}
